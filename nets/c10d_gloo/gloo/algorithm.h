#pragma once

// Declarations only (see gloo/context.h in this folder): ProcessGroupGloo.hpp includes this header
// but names nothing from it.

#include "gloo/context.h"
