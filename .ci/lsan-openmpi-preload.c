// SPDX-License-Identifier: BSD-3-Clause
// Preloaded (LD_PRELOAD) into the MPI tests of CI's sanitizer pass
// (scripts/test-sanitizers) so that LeakSanitizer can name Open MPI's own
// leaks from ASan's fast, frame-pointer stacks; without it those leaks need
// the slow unwinder (fast_unwind_on_malloc=0), which makes every malloc of
// the tests an order of magnitude dearer.  Open MPI and PMIx are built
// without frame pointers, so a fast stack of an allocation they make ends
// at its first frame: the direct caller of malloc.  Two things can hide
// Open MPI there, and this library removes both:
//
// - dlclose: Open MPI 4.1 unloads its components (mca_*.so) at
//   MPI_Finalize, before LeakSanitizer reports, and their frames become
//   "<unknown module>" (Open MPI 4.1 has no mca_base_component_disable_dlclose).
//   Here dlclose unloads nothing; components stay mapped until exit.
// - asprintf and its kin: glibc allocates the string in
//   __vasprintf_internal, itself without frame pointers, so the caller is
//   lost.  Here they are built with frame pointers over vsnprintf and
//   malloc, so the stack goes on to the Open MPI function that called them.
//
// Nothing else changes: the suppressions (.ci/lsan-openmpi.supp) still name
// Open MPI's libraries only, and a leak of adlib's is reported as before.
// Built by scripts/test-sanitizers with -fno-omit-frame-pointer; never part
// of adlib.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int dlclose(void* handle) {
  (void)handle;
  return 0;
}

__attribute__((noinline)) int vasprintf(char** out, const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int length = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (length < 0) return -1;
  char* text = malloc((size_t)length + 1);
  if (text == NULL) return -1;
  vsnprintf(text, (size_t)length + 1, format, args);
  *out = text;
  return length;
}

__attribute__((noinline)) int __vasprintf_chk(char** out, int flag, const char* format,
                                              va_list args) {
  (void)flag;
  return vasprintf(out, format, args);
}

__attribute__((noinline)) int asprintf(char** out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int length = vasprintf(out, format, args);
  va_end(args);
  return length;
}

__attribute__((noinline)) int __asprintf_chk(char** out, int flag, const char* format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  const int length = vasprintf(out, format, args);
  va_end(args);
  return length;
}
