#pragma once

// The one writer and the one reader of whole files (net files, record chunks, checkpoints,
// run-directory files, plots, saved games). Writing: a reader, and a run resumed after a kill or a
// power cut, sees the old file or the new one, never a mix, and a file that a function here
// reported written survives a crash.
//
// Protocol (the one of KataGo's data files and of SQLite's journal, POSIX rename(2) semantics):
//   1. write the bytes to a temporary file in the destination's own directory,
//        "<path>.tmp.<pid>.<hex>"   (TemporaryPathFor: unique per process and call)
//   2. fsync(2) it and close it,
//   3. rename(2) it over <path> (or link(2) it, which never replaces, for CreateFileAtomically),
//   4. fsync(2) the directory, so that the new name is on disk too.
// A kill between 1 and 3 leaves only the temporary file; RemoveStaleTemporaryFiles deletes those.
// Plain C++ and POSIX (no LibTorch, no protobuf), so every layer can use it.
// Thread-safety: all functions may be called from several threads; two writers of one path in
// parallel each write a whole file, and the last rename wins.

#include <cstdint>
#include <string>
#include <string_view>

namespace vz {

// The bytes of the regular file `path`, whole. `what` names the kind of file in errors ("net
// file", "checkpoint", ...). Throws vz::Error "<what> <path>: <reason>" when the file cannot be
// opened (with the system's reason), is not a regular file (a directory; a FIFO or a device, whose
// reading could block or never end: it is opened without blocking and refused), holds more than
// `max_bytes` bytes (also one that grew beyond them while it was read), or a read fails. Never
// blocks on a FIFO, never keeps more than `max_bytes` bytes.
std::string ReadWholeFile(const std::string& path, std::string_view what, uint64_t max_bytes);

// A fresh temporary name next to `path`: "<path>.tmp.<pid>.<hex>", different at every call in a
// process and (with high probability) between processes of different hosts.
std::string TemporaryPathFor(const std::string& path);

// Steps 2-4 for a temporary file that the caller wrote and closed itself (a library that only
// writes to a file name): fsyncs `temporary`, renames it to `path` and fsyncs the directory.
// Removes `temporary` and throws vz::Error naming `path` and the system's reason on failure.
void CommitTemporaryFile(const std::string& temporary, const std::string& path);

// Writes `bytes` to `path` by the protocol above, replacing an existing file. Throws vz::Error
// naming `path` and the system's reason (a missing directory, a full disk, no permission); the
// temporary file is removed then.
void WriteFileAtomically(const std::string& path, std::string_view bytes);

// Checks, before a long job whose result goes to `path`, that the file can be created there: its
// directory exists (the working directory for a bare name). Throws vz::Error "<what> <path>:
// cannot be written: <directory>: <the system's reason>" (e.g. "No such file or directory"), or
// "... <directory> is not a directory", so that nothing is computed for a result that could not
// be kept.
void CheckDirectoryOf(const std::string& path, std::string_view what);

// As WriteFileAtomically, but never replaces an existing `path` (link(2) instead of rename(2)),
// so of processes racing to create it exactly one succeeds. Returns false when `path` existed.
// Throws vz::Error as WriteFileAtomically.
bool CreateFileAtomically(const std::string& path, std::string_view bytes);

// True when `file_name` (no directory) is a temporary name of TemporaryPathFor, and then its pid.
bool ParseTemporaryName(std::string_view file_name, int* pid);

// Deletes the temporary files of TemporaryPathFor in `directory` (not recursive) left by writers
// that were killed: with `only_dead_writers`, only those whose pid is not a live process of this
// host (kill(pid, 0) fails with ESRCH), else all of them (for a caller that holds the lock of
// every writer of the directory). Returns the number removed; a missing directory gives 0.
// Never throws.
int RemoveStaleTemporaryFiles(const std::string& directory, bool only_dead_writers);

}  // namespace vz
