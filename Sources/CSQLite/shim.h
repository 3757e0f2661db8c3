#include <sqlite3.h>
#include <stdint.h>

/// Reads a 32-bit word of memory that other processes write (SQLite's shared wal-index), with
/// acquire ordering.
static inline uint32_t masthead_load_shared_u32(const volatile void *address) {
    return __atomic_load_n((const volatile uint32_t *)address, __ATOMIC_ACQUIRE);
}
