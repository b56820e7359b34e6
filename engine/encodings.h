#pragma once

// The network input encoding and policy index of every registered game (InputEncoding<G>, see
// engine/input_encoding.h), one header per game.

#include "engine/chaco_rex/encoding.h"
#include "engine/chad/encoding.h"
#include "engine/cuarenta/encoding.h"
#include "engine/draughts/encoding.h"
