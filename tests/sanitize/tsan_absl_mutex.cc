// ThreadSanitizer builds only (CAPPLAN_SANITIZE=thread, `make test-tsan`): makes absl::Mutex
// and absl::CondVar visible to TSan.
//
// Debian's Abseil is a GCC build without TSan's annotations, and absl::Mutex synchronises
// with atomics and futex system calls that TSan does not see: every lock would look like no
// lock at all, and every access under one like a race. This library, linked first into each
// executable of that build, defines the exported lock functions of absl::Mutex and
// absl::CondVar itself. Each forwards to Abseil's own (dlsym RTLD_NEXT) and tells TSan what
// happened with its public mutex annotations (sanitizer/tsan_interface.h), as Abseil does
// when it is itself built with TSan. Being dynamic symbols, these definitions take the calls
// of every library that locks an absl::Mutex through the PLT: capplan's code, and gRPC's
// (libgrpc, libgpr, libgrpc++), whose hand-offs between threads become visible too.
//
// What Abseil's functions do inside (evaluating a Condition, which reads guarded fields, on
// whichever thread holds the lock at the time) runs between a pre_ and a post_ annotation,
// where TSan ignores memory accesses, as it does for a mutex built with its annotations.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"

#if !ABSL_OPTION_USE_INLINE_NAMESPACE
#error "tsan_absl_mutex.cc spells Abseil's symbols with its inline namespace"
#endif

#define CAPPLAN_TSAN_STR2(x) #x
#define CAPPLAN_TSAN_STR(x) CAPPLAN_TSAN_STR2(x)

namespace {

// The Itanium mangling of absl::<inline namespace>::`rest`: "_ZN4absl" <len><ns> rest.
std::string Mangled(const char* rest) {
  const char* ns = CAPPLAN_TSAN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  return std::string("_ZN4absl") + std::to_string(std::strlen(ns)) + ns + rest;
}

// Abseil's own definition of the function spelled `rest` (see Mangled), the one these
// definitions hide. Aborts when there is none: a TSan run that cannot see locks is no run.
void* Real(const char* rest) {
  const std::string name = Mangled(rest);
  void* f = dlsym(RTLD_NEXT, name.c_str());
  if (f == nullptr) {
    std::fprintf(stderr, "tsan_absl_mutex: no %s after this library: %s\n", name.c_str(), dlerror());
    std::abort();
  }
  return f;
}

template <typename Fn>
Fn RealFn(const char* rest) {
  return reinterpret_cast<Fn>(Real(rest));
}

using Condition = absl::Condition;
using Duration = absl::Duration;
using Mutex = absl::Mutex;
using Time = absl::Time;

constexpr unsigned kRead = __tsan_mutex_read_lock;
constexpr unsigned kTry = __tsan_mutex_try_lock;
constexpr unsigned kTryFailed = __tsan_mutex_try_lock_failed;

// Abseil's functions call one another through the PLT too (AwaitWithTimeout calls
// AwaitWithDeadline, CondVar::WaitWithTimeout calls WaitWithDeadline): only the outermost
// call on a thread is annotated, or one wait would be told to TSan twice.
thread_local int t_depth = 0;

struct Nested {
  Nested() { ++t_depth; }
  ~Nested() { --t_depth; }
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;
};

// The lock is taken by the call in between (TSan acquires what its last holder released).
void PreLock(Mutex* mu, unsigned flags) {
  if (t_depth == 1) __tsan_mutex_pre_lock(mu, flags);
}
void PostLock(Mutex* mu, unsigned flags) {
  if (t_depth == 1) __tsan_mutex_post_lock(mu, flags, 0);
}
void PreUnlock(Mutex* mu, unsigned flags) {
  if (t_depth == 1) __tsan_mutex_pre_unlock(mu, flags);
}
void PostUnlock(Mutex* mu, unsigned flags) {
  if (t_depth == 1) __tsan_mutex_post_unlock(mu, flags);
}

// A wait that gives the lock up and has it again on return (CondVar::Wait*, Mutex::Await*):
// a release now, accesses inside ignored, an acquire at the end.
template <typename Call>
auto Releasing(Mutex* mu, unsigned flags, Call call) {
  PreUnlock(mu, flags);
  auto result = call();
  PostUnlock(mu, flags);
  PreLock(mu, flags);
  PostLock(mu, flags);
  return result;
}

// A lock call that returns with the lock held whatever it returns (LockWhen*).
template <typename Call>
auto Locking(Mutex* mu, unsigned flags, Call call) {
  PreLock(mu, flags);
  auto result = call();
  PostLock(mu, flags);
  return result;
}

struct Void {};

// Checks once, at load, that these definitions are the ones the program calls: linked after
// Abseil, they would be silently bypassed and TSan would report every guarded field.
__attribute__((constructor)) void CheckInterposed() {
  void* lock = dlsym(RTLD_DEFAULT, Mangled("5Mutex4LockEv").c_str());
  Dl_info mine{};
  Dl_info found{};
  if (dladdr(reinterpret_cast<void*>(&CheckInterposed), &mine) == 0 || lock == nullptr || dladdr(lock, &found) == 0 ||
      std::strcmp(mine.dli_fname, found.dli_fname) != 0) {
    std::fprintf(stderr,
                 "tsan_absl_mutex: absl::Mutex::Lock resolves to %s, not to this library: link it before "
                 "Abseil (see cmake/sanitize.cmake)\n",
                 lock != nullptr && found.dli_fname != nullptr ? found.dli_fname : "nothing");
    std::abort();
  }
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const auto real = RealFn<void (*)(Mutex*)>("5Mutex4LockEv");
  const Nested nested;
  Locking(this, 0, [&] { return real(this), Void{}; });
}

void Mutex::ReaderLock() {
  static const auto real = RealFn<void (*)(Mutex*)>("5Mutex10ReaderLockEv");
  const Nested nested;
  Locking(this, kRead, [&] { return real(this), Void{}; });
}

void Mutex::Unlock() {
  static const auto real = RealFn<void (*)(Mutex*)>("5Mutex6UnlockEv");
  const Nested nested;
  PreUnlock(this, 0);
  real(this);
  PostUnlock(this, 0);
}

void Mutex::ReaderUnlock() {
  static const auto real = RealFn<void (*)(Mutex*)>("5Mutex12ReaderUnlockEv");
  const Nested nested;
  PreUnlock(this, kRead);
  real(this);
  PostUnlock(this, kRead);
}

bool Mutex::TryLock() {
  static const auto real = RealFn<bool (*)(Mutex*)>("5Mutex7TryLockEv");
  const Nested nested;
  PreLock(this, kTry);
  const bool locked = real(this);
  PostLock(this, locked ? kTry : kTry | kTryFailed);
  return locked;
}

bool Mutex::ReaderTryLock() {
  static const auto real = RealFn<bool (*)(Mutex*)>("5Mutex13ReaderTryLockEv");
  const Nested nested;
  PreLock(this, kRead | kTry);
  const bool locked = real(this);
  PostLock(this, locked ? kRead | kTry : kRead | kTry | kTryFailed);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const auto real = RealFn<void (*)(Mutex*, const Condition&)>("5Mutex8LockWhenERKNS0_9ConditionE");
  const Nested nested;
  Locking(this, 0, [&] { return real(this, cond), Void{}; });
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const auto real = RealFn<void (*)(Mutex*, const Condition&)>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  const Nested nested;
  Locking(this, kRead, [&] { return real(this, cond), Void{}; });
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real = RealFn<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const Nested nested;
  return Locking(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real = RealFn<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const Nested nested;
  return Locking(this, kRead, [&] { return real(this, cond, timeout); });
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      RealFn<bool (*)(Mutex*, const Condition&, Time)>("5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const Nested nested;
  return Locking(this, 0, [&] { return real(this, cond, deadline); });
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const auto real = RealFn<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const Nested nested;
  return Locking(this, kRead, [&] { return real(this, cond, deadline); });
}

void Mutex::Await(const Condition& cond) {
  static const auto real = RealFn<void (*)(Mutex*, const Condition&)>("5Mutex5AwaitERKNS0_9ConditionE");
  const Nested nested;
  Releasing(this, 0, [&] { return real(this, cond), Void{}; });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real =
      RealFn<bool (*)(Mutex*, const Condition&, Duration)>("5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const Nested nested;
  return Releasing(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      RealFn<bool (*)(Mutex*, const Condition&, Time)>("5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const Nested nested;
  return Releasing(this, 0, [&] { return real(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mu) {
  static const auto real = RealFn<void (*)(CondVar*, Mutex*)>("7CondVar4WaitEPNS0_5MutexE");
  const Nested nested;
  Releasing(mu, 0, [&] { return real(this, mu), Void{}; });
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const auto real =
      RealFn<bool (*)(CondVar*, Mutex*, Duration)>("7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  const Nested nested;
  return Releasing(mu, 0, [&] { return real(this, mu, timeout); });
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const auto real =
      RealFn<bool (*)(CondVar*, Mutex*, Time)>("7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  const Nested nested;
  return Releasing(mu, 0, [&] { return real(this, mu, deadline); });
}

ABSL_NAMESPACE_END
}  // namespace absl
