#pragma once

// The page of `vzero serve` (serve/web/: HTML, CSS, JavaScript, no build step), compiled into the
// binary by cmake/embed_files.cmake, so that the server reads no file of its own at run time.
// Thread-safety: the table is immutable.

#include <string_view>
#include <vector>

namespace vz {

struct WebAsset {
  std::string_view path;          // URL path, "/index.html", "/app.js"
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view body;
};

// Every file of serve/web/, in path order (generated source).
const std::vector<WebAsset>& EmbeddedWebAssets();

// The asset served at `path` ("/" is "/index.html"), or nullptr. Only exact names match, so no
// path (with "..", "%2e", a backslash) reaches anything else.
const WebAsset* FindWebAsset(std::string_view path);

}  // namespace vz
