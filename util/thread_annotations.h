// Clang's thread-safety attributes (-Wthread-safety), as LevelDB's
// port/thread_annotations.h: lock contracts the compiler checks. Under GCC,
// and any compiler without the attributes, every macro is empty.
//
// GUARDED_BY(mu)        a member read or written only with mu held;
// PT_GUARDED_BY(mu)     what a pointer member points to, the same;
// ACQUIRED_AFTER(m...)  ACQUIRED_BEFORE(m...): the lock order (checked with
//                       -Wthread-safety-beta; the one order is written in
//                       env/store.h);
// REQUIRES(mu)          a function called with mu held (REQUIRES_SHARED: at
//                       least shared); EXCLUDES(mu): called without, as it
//                       takes mu itself;
// ACQUIRE / RELEASE     what a lock type's own functions do (TRY_ACQUIRE(true,
//                       mu): mu held if the function returns true);
// NO_THREAD_SAFETY_ANALYSIS  the analysis cannot follow this function: each
//                       use says why in a comment beside it.
// The annotated lock types are in util/mutex.h; tests/run.sh's `threads`
// stage builds the library with clang++-14 and -Werror=thread-safety.
#pragma once

#if defined(__clang__)
#define TIERFS_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TIERFS_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) TIERFS_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY TIERFS_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) TIERFS_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) TIERFS_THREAD_ANNOTATION(pt_guarded_by(x))
#define ACQUIRED_AFTER(...) TIERFS_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define ACQUIRED_BEFORE(...) TIERFS_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define REQUIRES(...) TIERFS_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) TIERFS_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) TIERFS_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) TIERFS_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) TIERFS_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) TIERFS_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) TIERFS_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) TIERFS_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) TIERFS_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) TIERFS_THREAD_ANNOTATION(assert_shared_capability(x))
#define RETURN_CAPABILITY(x) TIERFS_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS TIERFS_THREAD_ANNOTATION(no_thread_safety_analysis)
