// Support for Boost.Context's ucontext fibers, used only by the sanitizer builds (CMake ALLOCSIM_SANITIZE
// and ALLOCSIM_FUZZ define BOOST_USE_UCONTEXT, since in Boost 1.74 only that implementation tells ASan
// about fiber switches).
//
// Why this file exists: fiber_ucontext.hpp declares fiber_activation_record::current() but leaves its
// definition to libboost_context, which defines it only when the library itself is built for ucontext.
// Debian 12 ships the library built for fcontext, so a ucontext build fails to link. The definition below
// follows the header's contract: per thread, a pointer to the record of whatever context runs now, which
// starts as a record for the thread's own (main) context; the header's resume code updates it.
#if defined(BOOST_USE_UCONTEXT)

#include <boost/context/fiber.hpp>

namespace boost::context::detail {

fiber_activation_record*& fiber_activation_record::current() noexcept {
  // The default constructor makes a main-context record (main_ctx = true) from getcontext(); it lives as
  // long as the thread, so the pointer to it stays valid whenever control is back on the thread's stack.
  thread_local fiber_activation_record thread_main_context;
  thread_local fiber_activation_record* running = &thread_main_context;
  return running;
}

}  // namespace boost::context::detail

#endif  // BOOST_USE_UCONTEXT
