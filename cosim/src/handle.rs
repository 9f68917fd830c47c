//! The handle table: every live block lives here, and C holds only an opaque handle.
//!
//! A handle is a 64-bit value disguised as a pointer; it is never dereferenced:
//!
//! ```text
//!  63      56 55                32 31                       0
//! +----------+--------------------+--------------------------+
//! | tag 0xDC | generation (24 b)  | slot index + 1 (32 b)    |
//! +----------+--------------------+--------------------------+
//! ```
//!
//! Freeing a block bumps its slot's generation, so every copy of the old handle is
//! detected as stale (`DCFAB_ERR_BAD_HANDLE`) instead of reaching whatever block later
//! reuses the slot. Freed slots are reused oldest-first, and a slot whose generation is
//! exhausted is retired for good, so a stale handle can never be mistaken for a live one.
//! A value without the tag (a random pointer, a handle from another library) is rejected
//! the same way; a live handle of another block kind gives `DCFAB_ERR_WRONG_KIND`.
//!
//! One mutex guards the table (the library may be called from several threads, e.g. by
//! Python); an uncontended lock costs a few nanoseconds per call.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::status::{
    Error, DCFAB_ERR_BAD_HANDLE, DCFAB_ERR_FULL, DCFAB_ERR_NULL_HANDLE, DCFAB_ERR_WRONG_KIND,
};

// Handles are pointer-sized 64-bit values.
const _: () = assert!(core::mem::size_of::<usize>() == 8);

const TAG_SHIFT: u32 = 56;
const TAG: u64 = 0xDC;
const GEN_MASK: u64 = (1 << 24) - 1;
/// Highest generation a slot may reach before it is retired.
pub(crate) const MAX_GEN: u32 = GEN_MASK as u32;
/// Most blocks alive at once.
pub(crate) const MAX_LIVE: usize = 1 << 20;

/// A block type that can live in the table.
pub(crate) trait Kind: Sized {
    /// Human-readable kind, used in error messages.
    const NAME: &'static str;
    /// Put the block in its [`Block`] variant.
    fn wrap(self) -> Block;
    /// Borrow the block if `b` is of this kind.
    fn peel(b: &mut Block) -> Option<&mut Self>;
}

macro_rules! blocks {
    ($($variant:ident($ty:ty) = $name:literal;)*) => {
        /// Every kind of block the ABI exposes.
        pub(crate) enum Block {
            $($variant(Box<$ty>),)*
        }

        impl Block {
            pub(crate) fn kind(&self) -> &'static str {
                match self {
                    $(Block::$variant(_) => $name,)*
                }
            }
        }

        $(
            impl Kind for $ty {
                const NAME: &'static str = $name;
                fn wrap(self) -> Block {
                    Block::$variant(Box::new(self))
                }
                fn peel(b: &mut Block) -> Option<&mut Self> {
                    match b {
                        Block::$variant(x) => Some(x),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*
    };
}

blocks! {
    TokenBucket(rtl_models::TokenBucket) = "token bucket";
    PhantomQueue(rtl_models::PhantomQueue) = "phantom queue";
    RedMarker(crate::red::Red) = "RED/ECN marker";
    DcsimArbiter(switch::dcsim::DefaultDcsimArbiter) = "DCSIM port arbiter";
    Reps(crate::reps::RepsBlock) = "REPS load balancer";
    UnoCc(nic::uno::UnoCc) = "UnoCC flow";
    UnoPort(crate::uno::UnoPortBlock) = "Uno phantom-marking port";
    ZpSched(scheduler_asic::K8Scheduler) = "Zeropod scheduler (k = 8)";
}

struct Slot {
    gen: u32,
    obj: Option<Block>,
}

struct Table {
    slots: Vec<Slot>,
    free: VecDeque<u32>,
    live: usize,
}

static TABLE: Mutex<Table> = Mutex::new(Table {
    slots: Vec::new(),
    free: VecDeque::new(),
    live: 0,
});

fn table() -> MutexGuard<'static, Table> {
    // A panic caught while the lock was held leaves at most that one block inconsistent;
    // the table itself is always consistent between statements, so keep going.
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn encode(index: u32, gen: u32) -> u64 {
    (TAG << TAG_SHIFT) | ((gen as u64 & GEN_MASK) << 32) | (index as u64 + 1)
}

fn decode(h: u64) -> Result<(usize, u32), Error> {
    if h == 0 {
        return Err(Error::new(DCFAB_ERR_NULL_HANDLE, "handle is NULL"));
    }
    let low = h as u32;
    if h >> TAG_SHIFT != TAG || low == 0 {
        return Err(Error::new(
            DCFAB_ERR_BAD_HANDLE,
            format!("{h:#x} is not a dcfab handle"),
        ));
    }
    Ok(((low - 1) as usize, ((h >> 32) & GEN_MASK) as u32))
}

impl Table {
    fn slot(&mut self, h: u64) -> Result<(usize, &mut Block), Error> {
        let (index, gen) = decode(h)?;
        match self.slots.get_mut(index) {
            Some(Slot {
                gen: g,
                obj: Some(obj),
            }) if *g == gen => Ok((index, obj)),
            _ => Err(Error::new(
                DCFAB_ERR_BAD_HANDLE,
                format!("handle {h:#x} was freed or never issued"),
            )),
        }
    }
}

fn wrong_kind<T: Kind>(found: &'static str) -> Error {
    Error::new(
        DCFAB_ERR_WRONG_KIND,
        format!("handle is a {found}, expected a {}", T::NAME),
    )
}

/// Store a new block; returns its handle.
pub(crate) fn insert<T: Kind>(obj: T) -> Result<u64, Error> {
    let mut t = table();
    if t.live >= MAX_LIVE {
        return Err(Error::new(
            DCFAB_ERR_FULL,
            format!("{MAX_LIVE} blocks are alive; free some first"),
        ));
    }
    let block = obj.wrap();
    let index = match t.free.pop_front() {
        Some(i) => {
            t.slots[i as usize].obj = Some(block);
            i
        }
        None => {
            let i = t.slots.len() as u32;
            t.slots.push(Slot {
                gen: 1,
                obj: Some(block),
            });
            i
        }
    };
    t.live += 1;
    Ok(encode(index, t.slots[index as usize].gen))
}

/// Run `f` on the live block behind `h`, which must be of kind `T`.
pub(crate) fn with<T: Kind, R>(
    h: u64,
    f: impl FnOnce(&mut T) -> Result<R, Error>,
) -> Result<R, Error> {
    let mut t = table();
    let (_, block) = t.slot(h)?;
    let found = block.kind();
    match T::peel(block) {
        Some(obj) => f(obj),
        None => Err(wrong_kind::<T>(found)),
    }
}

/// Free the block behind `h` (of kind `T`); every copy of `h` becomes stale.
pub(crate) fn remove<T: Kind>(h: u64) -> Result<(), Error> {
    let old = {
        let mut t = table();
        let (index, block) = t.slot(h)?;
        let found = block.kind();
        if T::peel(block).is_none() {
            return Err(wrong_kind::<T>(found));
        }
        let slot = &mut t.slots[index];
        let old = slot.obj.take();
        if slot.gen < MAX_GEN {
            slot.gen += 1;
            t.free.push_back(index as u32);
        } // else: retired, never reused.
        t.live -= 1;
        old
    };
    drop(old); // outside the lock
    Ok(())
}

/// Number of live blocks of every kind.
pub(crate) fn live() -> usize {
    table().live
}

/// A handle as the pointer C sees.
pub(crate) fn to_ptr<O>(h: u64) -> *mut O {
    h as usize as *mut O
}

/// The handle behind a pointer C passed in.
pub(crate) fn from_ptr<O>(p: *const O) -> u64 {
    p as usize as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip() {
        for (i, g) in [(0u32, 1u32), (5, 77), (u32::MAX - 1, MAX_GEN)] {
            assert_eq!(decode(encode(i, g)).unwrap(), (i as usize, g));
        }
        assert_eq!(decode(0).unwrap_err().code, DCFAB_ERR_NULL_HANDLE);
        assert_eq!(decode(0x1234).unwrap_err().code, DCFAB_ERR_BAD_HANDLE);
        assert_eq!(
            decode(TAG << TAG_SHIFT).unwrap_err().code,
            DCFAB_ERR_BAD_HANDLE
        );
    }

    #[test]
    fn retired_slot_is_never_reused() {
        // Drive one slot to the last generation by hand, then free it.
        let h = insert(rtl_models::TokenBucket::new(rtl_models::Rate::ZERO, 1).unwrap()).unwrap();
        let (index, _) = decode(h).unwrap();
        let last = {
            let mut t = table();
            t.slots[index].gen = MAX_GEN;
            encode(index as u32, MAX_GEN)
        };
        remove::<rtl_models::TokenBucket>(last).unwrap();
        assert!(!table().free.contains(&(index as u32)));
        assert_eq!(
            with::<rtl_models::TokenBucket, ()>(last, |_| Ok(()))
                .unwrap_err()
                .code,
            DCFAB_ERR_BAD_HANDLE
        );
        assert_eq!(
            with::<rtl_models::TokenBucket, ()>(h, |_| Ok(()))
                .unwrap_err()
                .code,
            DCFAB_ERR_BAD_HANDLE
        );
    }
}
