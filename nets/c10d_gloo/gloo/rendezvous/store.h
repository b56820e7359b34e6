#pragma once

// Declarations only (see gloo/context.h in this folder): the rendezvous store interface that
// ProcessGroupGloo::GlooStore (an adapter vzero never constructs) overrides. The store-v2 part
// (GLOO_STORE_HAS_STORE_V2) is left out, so those overrides are not compiled here.

#include <chrono>
#include <string>
#include <vector>

namespace gloo::rendezvous {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::vector<char>& data) = 0;
  virtual std::vector<char> get(const std::string& key) = 0;
  virtual void wait(const std::vector<std::string>& keys) = 0;
  virtual void wait(const std::vector<std::string>& keys,
                    const std::chrono::milliseconds& timeout) = 0;
};

}  // namespace gloo::rendezvous
