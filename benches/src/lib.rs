//! Benchmarks live in `benches/benches/`; see `benches/README.md` for the figures.
