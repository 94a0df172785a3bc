#pragma once

namespace fovea::test {

/// Allocations by operator new so far in this process. allocation_counter.cpp replaces the
/// global operator new and delete family with counting versions (malloc and free inside);
/// the linker takes them for every test executable, since each needs an operator new. A
/// test can then show that a stretch of code allocates nothing (fovea allocates nothing
/// per frame in the steady state: docs/narrowphase.md). Read it before Catch's INFO or CHECK macros, which allocate.
long allocations();

}  // namespace fovea::test
