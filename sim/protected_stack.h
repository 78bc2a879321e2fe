// The sanitizer build's stack allocator for the engine's fibers (sim/engine.cpp, only under
// ALLOCSIM_PROTECTED_STACKS, which CMake's ALLOCSIM_SANITIZE sets): stacks with a PROT_NONE guard page below
// them, pooled across executions. Shapes: `bytes` is the usable stack size; each stack is that rounded up to
// pages plus one guard page. Errors: std::bad_alloc when mmap or mprotect fails. One engine, one thread.
#pragma once

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/stack_context.hpp>
#include <memory>
#include <new>
#include <vector>

namespace allocsim::sim {

/// Boost.Context StackAllocator for the sanitizer build: stacks with a PROT_NONE guard page below them (an
/// overflow faults where ASan reports it, instead of corrupting the heap), kept for reuse across executions.
/// boost::context::protected_fixedsize_stack maps and unmaps one per fiber: under ASan that was half the
/// suite's time in the kernel (mmap, mprotect, first-touch page faults). A copy shares the pool (Boost
/// keeps a copy per fiber); one engine, one thread. A reused stack is unpoisoned first: frames left by
/// the fiber that had it must not look like redzones to the next.
class PooledProtectedStack {
 public:
  explicit PooledProtectedStack(size_t bytes) : pool_(std::make_shared<Pool>()) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    pool_->size = ((bytes + page - 1) / page + 1) * page;  // + the guard page
    pool_->page = page;
  }
  boost::context::stack_context allocate() {
    boost::context::stack_context sctx;
    sctx.size = pool_->size;
    if (!pool_->free.empty()) {
      sctx.sp = pool_->free.back();
      pool_->free.pop_back();
      ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(sctx.sp) - sctx.size + pool_->page, sctx.size - pool_->page);
      return sctx;
    }
    void* vp = ::mmap(nullptr, sctx.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (vp == MAP_FAILED) throw std::bad_alloc();
    if (::mprotect(vp, pool_->page, PROT_NONE) != 0) {
      ::munmap(vp, sctx.size);
      throw std::bad_alloc();
    }
    sctx.sp = static_cast<char*>(vp) + sctx.size;
    return sctx;
  }
  void deallocate(boost::context::stack_context& sctx) noexcept { pool_->free.push_back(sctx.sp); }

 private:
  struct Pool {
    size_t size = 0, page = 0;
    std::vector<void*> free;  // tops of stacks not in use
    ~Pool() {
      for (void* sp : free) ::munmap(static_cast<char*>(sp) - size, size);
    }
  };
  std::shared_ptr<Pool> pool_;
};

}  // namespace allocsim::sim
