//! # Zeropod switch blocks (Zeropod §III-B1, §III-C, §IV-A2, §IV-B3)
//!
//! * [`bufferless`]: [`BufferlessSwitch`], the zero-buffer source-routed crossbar of the
//!   ToRs and Aggs inside a pod;
//! * [`core_port`]: [`CorePort`], one buffered port of a Core switch with per-endhost VOQs
//!   for the pod it faces and backpressure;
//! * [`core_switch`]: [`CoreSwitch`], a Core as one such port per pod (one clock per pod,
//!   the backpressure mask its RTS broadcast).

pub mod bufferless;
pub mod core_port;
pub mod core_switch;

pub use bufferless::{BufferlessConfig, BufferlessStats, BufferlessSwitch, Cell, Departure};
pub use core_port::{CorePort, CorePortConfig, CorePortStats};
pub use core_switch::CoreSwitch;
