//! Transports: what a host runs per flow (sender, receiver, timers) and the scenario section
//! each one owns. A transport's parameters are one `[transport.<name>]` section whose struct
//! and checks live next to its code: [`reps`] (`[transport.reps]`, the REPS load balancer's
//! knobs) and [`crate::dcsim::section`] (`[transport.dcsim]`).

pub mod reps;
