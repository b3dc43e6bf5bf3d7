//! Per-thread generators behind free functions, the fastest way to make IDs in an application:
//! `local::uuid7()` is the counterpart of `uuid::Uuid::now_v7()` without its process-wide mutex.
//!
//! Each thread gets its own generator on first use, seeded from the operating system, with the
//! cheap [`CoarseClock`] (timestamps may lag by one kernel tick; see its docs). IDs are ordered
//! per thread: two threads' UUIDv7s of the same millisecond interleave in no particular order,
//! but never collide (each thread's counter and random bits are independent, 74 random bits).
//!
//! # Panics
//!
//! The first call on a thread panics if the operating system's random source fails (as
//! `rand::thread_rng` does); use [`KeyRng::from_os`] and a generator directly to handle that.

use super::{CoarseClock, KeyRng, Ulid, UuidV4, UuidV7};
use std::cell::RefCell;

thread_local! {
    static V4: RefCell<Option<UuidV4>> = const { RefCell::new(None) };
    static V7: RefCell<Option<UuidV7<CoarseClock>>> = const { RefCell::new(None) };
    static ULID: RefCell<Option<Ulid<CoarseClock>>> = const { RefCell::new(None) };
}

fn os_rng() -> KeyRng {
    match KeyRng::from_os() {
        Ok(rng) => rng,
        Err(e) => panic!("{e}"),
    }
}

/// A random UUIDv4 from this thread's generator.
#[inline]
pub fn uuid4() -> [u8; 16] {
    V4.with(|g| g.borrow_mut().get_or_insert_with(|| UuidV4::new(os_rng())).next_bytes())
}

/// A UUIDv7 (method 1) from this thread's generator: increasing within the thread.
#[inline]
pub fn uuid7() -> [u8; 16] {
    V7.with(|g| g.borrow_mut().get_or_insert_with(|| UuidV7::new(os_rng(), CoarseClock)).next_bytes())
}

/// A monotonic ULID (16 bytes) from this thread's generator: increasing within the thread.
#[inline]
pub fn ulid() -> [u8; 16] {
    ULID.with(|g| g.borrow_mut().get_or_insert_with(|| Ulid::new(os_rng(), CoarseClock)).next_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::uuid_version;

    #[test]
    fn per_thread_streams_increase() {
        let a = uuid7();
        let b = uuid7();
        assert!(b > a && uuid_version(&b) == 7);
        assert!(ulid() < ulid());
        assert_eq!(uuid_version(&uuid4()), 4);
        let other = std::thread::spawn(uuid7).join().unwrap();
        assert_ne!(other, b);
    }
}
