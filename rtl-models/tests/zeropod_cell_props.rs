//! Pack / unpack round trips of the Zeropod cell formats under proptest.

use arbitrary_int::{u10, u3, u9};
use proptest::prelude::*;
use rtl_models::zeropod_cell::{
    ControlCell, DataHeader, DataHeaderRepr, MiceEntry, Route, RtsArrival, RtsRepr, SchdRepr,
    TrafficKind, MAX_HOPS,
};

fn route() -> impl Strategy<Value = Route> {
    (prop::collection::vec(0u8..64, 0..=MAX_HOPS), 0u8..=5).prop_map(|(ports, adv)| {
        let mut r = Route::new(&ports).unwrap();
        for _ in 0..adv {
            r = r.advanced();
        }
        r
    })
}

proptest! {
    #[test]
    fn data_header_round_trips(
        scheduled in any::<bool>(), prio in 0u8..8, route in route(),
        src in any::<u16>(), dst in any::<u16>(), flow in any::<u16>(),
        seq in any::<u32>(), len in 0u16..=512,
    ) {
        let r = DataHeaderRepr {
            scheduled, priority: u3::new(prio), route, src, dst, flow, seq, len: u10::new(len),
        };
        let b = r.to_bytes();
        let view = DataHeader::new_checked(&b[..]).unwrap();
        prop_assert_eq!(DataHeaderRepr::parse(&view).unwrap(), r);
        prop_assert_eq!(view.seq(), seq);
        prop_assert_eq!(view.route().unwrap().current(), route.current());
    }

    #[test]
    fn rts_round_trips(
        from_core in any::<bool>(), src in any::<u16>(),
        arr in prop::collection::vec((any::<u16>(), any::<u16>()), 0..=2),
        bp in any::<u32>(),
        mice in prop::collection::vec((0u16..512, 0u8..8), 0..=16),
    ) {
        let mut r = RtsRepr { from_core, src, backpressure: bp, ..RtsRepr::default() };
        r.n_arrivals = arr.len() as u8;
        for (i, (d, c)) in arr.iter().enumerate() {
            r.arrivals[i] = RtsArrival { dst: *d, cells: *c };
        }
        r.n_mice = mice.len() as u8;
        for (i, (d, s)) in mice.iter().enumerate() {
            r.mice[i] = MiceEntry { dst: u9::new(*d), size: u3::new(*s) };
        }
        let b = r.to_bytes();
        prop_assert_eq!(RtsRepr::parse(&ControlCell::new_checked(&b[..]).unwrap()).unwrap(), r);
    }

    #[test]
    fn schd_round_trips(
        to_core in any::<bool>(), t in 0u8..3, to in any::<u16>(), epoch in any::<u16>(),
        dst in any::<u16>(), volume in any::<u16>(), core in any::<u8>(), route in route(),
        slot in any::<u8>(),
    ) {
        let traffic = [TrafficKind::E2E, TrafficKind::E2P, TrafficKind::C2E][t as usize];
        let s = SchdRepr { to_core, traffic, to, epoch, dst, volume, core, route, slot };
        let b = s.to_bytes();
        prop_assert_eq!(SchdRepr::parse(&ControlCell::new_checked(&b[..]).unwrap()).unwrap(), s);
    }

    /// Any 40 bytes either parse to a form that re-emits the same bytes, or are refused.
    #[test]
    fn arbitrary_bytes_parse_or_refuse(b in prop::array::uniform32(any::<u8>()), tail in any::<[u8; 8]>()) {
        let mut c = [0u8; 40];
        c[..32].copy_from_slice(&b);
        c[32..].copy_from_slice(&tail);
        // Make the interesting kinds likely.
        c[0] &= 0x1f;
        if let Ok(r) = DataHeaderRepr::parse(&DataHeader::new_unchecked(&c[..])) {
            prop_assert_eq!(r.to_bytes(), c);
        }
        if let Ok(r) = RtsRepr::parse(&ControlCell::new_unchecked(&c[..])) {
            prop_assert_eq!(r.to_bytes(), c);
        }
        if let Ok(r) = SchdRepr::parse(&ControlCell::new_unchecked(&c[..])) {
            prop_assert_eq!(r.to_bytes(), c);
        }
    }
}
