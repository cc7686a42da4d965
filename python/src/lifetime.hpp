// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Lifetime of what the Python module holds.  Kokkos must be finalised
/// before the interpreter exits, but Python frees a script's global objects
/// only after its atexit handlers ran, i.e. after Kokkos::finalize: a
/// DistArray or a schedule still alive then would free its Views too late.
/// So every Python object that owns Kokkos memory registers here, and the
/// atexit handler first releases what each of them holds, then finalises
/// Kokkos.  An object used after that raises adlib.Error.
#pragma once

#include <set>

#include <adlib/runtime/error.hpp>

namespace adlib_python {

/// An object whose Kokkos memory must go before Kokkos::finalize.
class Releasable {
 public:
  Releasable() { live().insert(this); }
  Releasable(const Releasable&) = delete;
  Releasable& operator=(const Releasable&) = delete;
  virtual ~Releasable() { live().erase(this); }
  /// Drops the Views (the object is unusable afterwards).
  virtual void release() = 0;

  /// Releases every live object (called once, at exit, with the GIL held).
  static void release_all() {
    for (Releasable* r : live()) r->release();
  }

 private:
  static std::set<Releasable*>& live() {
    static std::set<Releasable*> objects;
    return objects;
  }
};

/// The error an object released at exit raises when used.
inline adlib::Error released_error(const char* what) {
  return adlib::Error("used after the interpreter began to exit (Kokkos is finalised)", -1, what);
}

}  // namespace adlib_python
