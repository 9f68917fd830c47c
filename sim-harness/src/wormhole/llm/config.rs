//! Table 1's configurations and the message sizes of the [`super`] module doc.

use crate::error::{Error, Result};

/// Largest `TP x DP x PP` accepted (keeps every size and count inside `u64` / `u32`).
pub const MAX_GPUS: u64 = 1 << 16;

/// A model shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpec {
    /// Name, e.g. "GPT-13B", "MoE-8x7B".
    pub name: &'static str,
    /// Transformer layers `L`.
    pub layers: u64,
    /// Hidden size `h`.
    pub hidden: u64,
    /// Experts per layer `E` (0: dense).
    pub experts: u64,
    /// Experts each token is routed to.
    pub top_k: u64,
}

/// A parallel layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    /// Tensor parallel degree (GPUs per server).
    pub tp: u32,
    /// Data parallel degree.
    pub dp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Expert parallel degree (1: dense).
    pub ep: u32,
}

/// Compute time of one stage for one micro-batch, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeTimes {
    /// Forward, ps.
    pub fwd_ps: u64,
    /// Backward, ps.
    pub bwd_ps: u64,
}

/// One training configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlmConfig {
    /// The model.
    pub model: ModelSpec,
    /// Its layout.
    pub par: Parallelism,
    /// Sequence length `s`.
    pub seq_len: u64,
    /// Bytes per element `b`.
    pub elem_bytes: u64,
    /// Compute per micro-batch and stage.
    pub compute: ComputeTimes,
}

/// GPT or MoE (Table 1's two columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// TP-DP-PP dense GPT.
    Gpt,
    /// TP-EP-DP-PP mixture of experts.
    Moe,
}

const fn shape(name: &'static str, layers: u64, hidden: u64, experts: u64) -> ModelSpec {
    ModelSpec {
        name,
        layers,
        hidden,
        experts,
        top_k: if experts > 0 { 2 } else { 0 },
    }
}

/// Table 1: the configuration for `gpus` (64, 128, 256, 1024) and `family`, with the given
/// compute times.
pub fn table1(gpus: u32, family: Family, compute: ComputeTimes) -> Result<LlmConfig> {
    let (gpt, moe, dp, pp) = match gpus {
        64 => (
            shape("GPT-7B", 32, 4096, 0),
            shape("MoE-8x7B", 32, 4096, 8),
            4,
            2,
        ),
        128 => (
            shape("GPT-13B", 40, 5120, 0),
            shape("MoE-8x13B", 40, 5120, 8),
            4,
            4,
        ),
        256 => (
            shape("GPT-22B", 48, 6144, 0),
            shape("MoE-8x22B", 48, 6144, 8),
            8,
            4,
        ),
        1024 => (
            shape("GPT-175B", 96, 12288, 0),
            shape("MoE-32x22B", 48, 6144, 32),
            16,
            8,
        ),
        _ => {
            return Err(Error::field(
                "workload.llm.gpus",
                format!("Table 1 has 64, 128, 256 or 1024 GPUs, got {gpus}"),
            ))
        }
    };
    let (model, ep) = match family {
        Family::Gpt => (gpt, 1),
        Family::Moe => (moe, 8),
    };
    let c = LlmConfig {
        model,
        par: Parallelism { tp: 8, dp, pp, ep },
        seq_len: 2048,
        elem_bytes: 2,
        compute,
    };
    c.validate()?;
    Ok(c)
}

impl LlmConfig {
    /// Hosts (GPUs): `TP DP PP`.
    pub fn hosts(&self) -> u32 {
        self.par.tp * self.par.dp * self.par.pp
    }

    /// Micro-batches per iteration, `m = PP`.
    pub fn micro_batches(&self) -> u32 {
        self.par.pp
    }

    /// Check the layout; errors name the field.
    pub fn validate(&self) -> Result<()> {
        let p = self.par;
        for (f, v) in [
            ("workload.llm.tp", p.tp),
            ("workload.llm.dp", p.dp),
            ("workload.llm.pp", p.pp),
            ("workload.llm.ep", p.ep),
        ] {
            if v == 0 {
                return Err(Error::field(f, "must be at least 1"));
            }
        }
        let gpus = p.tp as u64 * p.dp as u64 * p.pp as u64;
        if gpus > MAX_GPUS {
            return Err(Error::field(
                "workload.llm",
                format!("TP x DP x PP = {gpus} GPUs, more than the {MAX_GPUS} supported"),
            ));
        }
        let m = &self.model;
        for (f, v, max) in [
            ("workload.llm.layers", m.layers, 1 << 12),
            ("workload.llm.hidden", m.hidden, 1 << 17),
            ("workload.llm.experts", m.experts, 1 << 10),
            ("workload.llm.top_k", m.top_k, 1 << 10),
            ("workload.llm.seq_len", self.seq_len, 1 << 20),
            ("workload.llm.elem_bytes", self.elem_bytes, 8),
        ] {
            if v > max {
                return Err(Error::field(f, format!("{v} is above the supported {max}")));
            }
        }
        if m.layers == 0 || m.hidden == 0 || self.seq_len == 0 || self.elem_bytes == 0 {
            return Err(Error::field(
                "workload.llm.model",
                "layers, hidden size, sequence length and element size must be positive",
            ));
        }
        if !m.layers.is_multiple_of(p.pp as u64) {
            return Err(Error::field(
                "workload.llm.pp",
                format!("{} layers do not split into {} stages", m.layers, p.pp),
            ));
        }
        if !self.seq_len.is_multiple_of(p.tp as u64) {
            return Err(Error::field(
                "workload.llm.tp",
                format!("sequence {} does not split over TP {}", self.seq_len, p.tp),
            ));
        }
        if m.experts == 0 && p.ep != 1 {
            return Err(Error::field("workload.llm.ep", "a dense model has EP 1"));
        }
        if m.experts > 0 {
            if !(p.tp * p.dp).is_multiple_of(p.ep) {
                return Err(Error::field(
                    "workload.llm.ep",
                    format!("EP {} must divide TP x DP = {}", p.ep, p.tp * p.dp),
                ));
            }
            if !m.experts.is_multiple_of(p.ep as u64) {
                return Err(Error::field(
                    "workload.llm.ep",
                    format!("{} experts do not split over EP {}", m.experts, p.ep),
                ));
            }
            if m.top_k == 0 {
                return Err(Error::field("workload.llm.top_k", "must be at least 1"));
            }
        }
        Ok(())
    }

    /// Layers per stage `L / PP`.
    fn layers_per_stage(&self) -> u64 {
        self.model.layers / self.par.pp as u64
    }

    /// PP activation bytes per flow: `b s h / TP`.
    pub fn activation_bytes(&self) -> u64 {
        self.elem_bytes * self.seq_len * self.model.hidden / self.par.tp as u64
    }

    /// Gradient bytes one GPU allreduces over its DP group (`G`).
    pub fn gradient_bytes(&self) -> u64 {
        let h2 = self.model.hidden * self.model.hidden;
        let tp = self.par.tp as u64;
        let per_layer = if self.model.experts == 0 {
            12 * h2 / tp
        } else {
            4 * h2 / tp + (self.model.experts / self.par.ep as u64) * 8 * h2
        };
        self.elem_bytes * self.layers_per_stage() * per_layer
    }

    /// Ring allreduce chunk per flow: `ceil(G / DP)`.
    pub fn dp_chunk_bytes(&self) -> u64 {
        self.gradient_bytes().div_ceil(self.par.dp as u64)
    }

    /// EP all-to-all bytes per (sender, receiver) pair: `(L/PP) (s/TP) top_k h b / EP`.
    pub fn ep_bytes(&self) -> u64 {
        if self.model.experts == 0 {
            return 0;
        }
        self.layers_per_stage()
            * (self.seq_len / self.par.tp as u64)
            * self.model.top_k
            * self.model.hidden
            * self.elem_bytes
            / self.par.ep as u64
    }

    /// Compute times from FLOPs at `tflops` TFLOP/s per GPU (see module doc): ps = FLOPs /
    /// TFLOP/s.
    pub fn compute_from_tflops(&self, tflops: u64) -> Result<ComputeTimes> {
        if tflops == 0 {
            return Err(Error::field("workload.llm.gpu_tflops", "must be positive"));
        }
        let h2 = self.model.hidden * self.model.hidden;
        let (s, tp, lps) = (self.seq_len, self.par.tp as u64, self.layers_per_stage());
        let (h2, s, tp, lps) = (h2 as u128, s as u128, tp as u128, lps as u128);
        let fwd_flops = if self.model.experts == 0 {
            2 * s * lps * 12 * h2 / tp
        } else {
            2 * lps * (s * 4 * h2 / tp + (s / tp) * self.model.top_k as u128 * 8 * h2)
        };
        let fwd_ps = u64::try_from(fwd_flops / tflops as u128).unwrap_or(u64::MAX / 2);
        Ok(ComputeTimes {
            fwd_ps,
            bwd_ps: 2 * fwd_ps,
        })
    }

    /// Host of (tp, dp, pp).
    pub fn host(&self, tp: u32, dp: u32, pp: u32) -> u32 {
        tp + self.par.tp * (dp + self.par.dp * pp)
    }

    /// The DP groups: for each (tp, pp), the hosts in ring order.
    pub fn dp_groups(&self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for pp in 0..self.par.pp {
            for tp in 0..self.par.tp {
                out.push((0..self.par.dp).map(|dp| self.host(tp, dp, pp)).collect());
            }
        }
        out
    }

    /// The EP groups of stage `pp` (see module doc).
    pub fn ep_groups(&self, pp: u32) -> Vec<Vec<u32>> {
        let (tpn, dpn, ep) = (self.par.tp, self.par.dp, self.par.ep);
        let local: Vec<u32> = (0..tpn * dpn)
            .map(|li| self.host(li / dpn, li % dpn, pp))
            .collect();
        local.chunks(ep as usize).map(<[u32]>::to_vec).collect()
    }
}
