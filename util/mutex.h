// Mutexes the thread-safety analysis knows (util/thread_annotations.h), as
// LevelDB's port::Mutex: thin wrappers over std::mutex, std::shared_mutex
// and std::condition_variable, plus scoped locks. Nothing else: no timed or
// recursive locks, no debug checks (AssertHeld only informs the analysis).
//
//   Mutex mu_;  int n_ GUARDED_BY(mu_);
//   { MutexLock lock(&mu_); ++n_; }                   // held to the scope's end
//   { MutexLock lock(&mu_); lock.Unlock(); ...; lock.Lock(); }   // let go mid-scope
//   cv_.Wait(&mu_, [&] { mu_.AssertHeld(); return stop_; });     // predicate under mu_
//   SharedMutex smu_;  { ReaderLock r(&smu_); }  { WriterLock w(&smu_); }
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "util/thread_annotations.h"

namespace tierfs {

class CondVar;

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // True, with the mutex held, if it was free.
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Tells the analysis the caller holds this mutex (a callback run under it).
  void AssertHeld() ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Exclusive (writers) or shared (readers).
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void LockShared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() RELEASE_SHARED() { mu_.unlock_shared(); }
  void AssertHeld() ASSERT_CAPABILITY(this) {}
  void AssertReaderHeld() ASSERT_SHARED_CAPABILITY(this) {}

 private:
  std::shared_mutex mu_;
};

// Holds `mu` (a Mutex, or a SharedMutex exclusively) to the end of the
// scope, or from Lock if constructed with std::defer_lock; Unlock and Lock
// let it go and take it again within the scope (the destructor unlocks only
// if held).
template <class M>
class SCOPED_CAPABILITY ExclusiveLock {
 public:
  explicit ExclusiveLock(M* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ExclusiveLock(M* mu, std::defer_lock_t) EXCLUDES(mu) : mu_(mu), held_(false) {}
  ~ExclusiveLock() RELEASE() {
    if (held_) mu_->Unlock();
  }
  ExclusiveLock(const ExclusiveLock&) = delete;
  ExclusiveLock& operator=(const ExclusiveLock&) = delete;

  void Unlock() RELEASE() {
    mu_->Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  M* const mu_;
  bool held_ = true;
};
using MutexLock = ExclusiveLock<Mutex>;
using WriterLock = ExclusiveLock<SharedMutex>;

// Holds `mu` shared to the end of the scope.
class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex* mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_->LockShared(); }
  ~ReaderLock() RELEASE() { mu_->UnlockShared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// A condition variable waited on under a Mutex. A predicate reading members
// guarded by the mutex starts with mu.AssertHeld(): the analysis checks a
// lambda's body on its own and does not know the wait runs it under the lock.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }
  // std::condition_variable::wait(lock, pred) on mu, held before and after.
  template <class Predicate>
  void Wait(Mutex* mu, Predicate pred) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock, pred);
    lock.release();
  }
  // std::condition_variable::wait_for(lock, timeout, pred): pred's last value.
  template <class Rep, class Period, class Predicate>
  bool WaitFor(Mutex* mu, const std::chrono::duration<Rep, Period>& timeout, Predicate pred)
      REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool result = cv_.wait_for(lock, timeout, pred);
    lock.release();
    return result;
  }

 private:
  std::condition_variable cv_;
};

}  // namespace tierfs
