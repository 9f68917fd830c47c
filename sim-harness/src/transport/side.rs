//! The side table: header extras a [`crate::packet::Packet`] cannot carry (a packet is a
//! 28-byte `Copy` struct held by value in every ring), kept by the transport that owns the
//! packet kind and named by a slot index the packet carries in a field its kind leaves
//! unused. Used today by DCSIM's DATA-ACK, whose 64-bit SACK word (DCSIM section 2.4 (4))
//! rides in the table with the slot in the packet's `psn`; the place for erasure-code
//! block ids and source-routed cell routes next.
//!
//! A slot is taken back when its packet arrives or is dropped
//! ([`crate::transport::TransportDriver::on_drop`]), so the table holds at most the packets
//! in flight. Slots are reused last-freed first, so a run's slot numbers depend only on its
//! order of events (deterministic).

/// A slab of `T`s named by `u32` slots.
#[derive(Debug, Clone, Default)]
pub struct SideTable<T> {
    vals: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy + Default> SideTable<T> {
    /// Store `v`; returns its slot.
    pub fn put(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.vals[i as usize] = v;
                i
            }
            None => {
                self.vals.push(v);
                (self.vals.len() - 1) as u32
            }
        }
    }

    /// Take back slot `i` (its packet arrived or was dropped); an unknown slot gives
    /// `T::default()`.
    pub fn take(&mut self, i: u32) -> T {
        match self.vals.get(i as usize) {
            Some(&v) => {
                self.free.push(i);
                v
            }
            None => T::default(),
        }
    }

    /// The value in slot `i` without taking it back (a switch reading a header extra);
    /// an unknown slot gives `T::default()`.
    #[inline]
    pub fn get(&self, i: u32) -> T {
        self.vals.get(i as usize).copied().unwrap_or_default()
    }

    /// Slots in use.
    pub fn live(&self) -> usize {
        self.vals.len() - self.free.len()
    }

    /// No slot in use.
    pub fn is_empty(&self) -> bool {
        self.live() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_table_round_trips_and_reuses_last_freed_slot() {
        let mut t = SideTable::<u64>::default();
        let a = t.put(0xAAAA);
        let b = t.put(0xBBBB);
        assert_ne!(a, b);
        assert_eq!(t.live(), 2);
        assert_eq!(t.take(a), 0xAAAA);
        assert_eq!(t.live(), 1);
        // The freed slot is reused, with the new value.
        let c = t.put(0xCCCC);
        assert_eq!(c, a);
        assert_eq!(t.get(b), 0xBBBB, "get leaves the slot in use");
        assert_eq!(t.live(), 2);
        assert_eq!(t.take(b), 0xBBBB);
        assert_eq!(t.take(c), 0xCCCC);
        assert!(t.is_empty());
    }

    #[test]
    fn side_table_unknown_slot_is_default_and_not_freed() {
        let mut t = SideTable::<(u32, u16)>::default();
        assert_eq!(t.take(7), (0, 0));
        assert!(t.is_empty());
        let s = t.put((3, 4));
        assert_eq!(s, 0, "an unknown slot must not enter the free list");
        assert_eq!(t.take(s), (3, 4));
    }
}
