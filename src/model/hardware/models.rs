//! Models by their architecture: what a step reads and computes depends on the parameters (all of them for the
//! weights read, the active ones for the FLOPs of a mixture of experts), the layers and the KV heads. The table
//! holds each model's Hugging Face `config.json` fields, from which the parameter counts are worked out (and checked
//! against the published counts by the tests).

use serde::{Deserialize, Serialize};

/// What the roofline needs of a model. Typed in for a model the table does not have ("other").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    /// Parameters, all of them (every expert of a mixture of experts): the weights a step reads.
    pub parameters: f64,
    /// Parameters one token goes through (for a mixture of experts, the shared ones and the experts it is routed
    /// to; the same as `parameters` for a dense model): a token costs twice this many FLOPs.
    pub active_parameters: f64,
    /// Transformer layers.
    pub layers: u32,
    /// Hidden size (`hidden_size`).
    pub hidden_size: u32,
    /// Attention (query) heads.
    pub attention_heads: u32,
    /// Key/value heads (fewer than attention heads under grouped-query attention).
    pub kv_heads: u32,
    /// Size of one head.
    pub head_dim: u32,
    /// Bytes per weight: 2 for BF16/FP16, 1 for FP8.
    pub weight_bytes: f64,
    /// Bytes per cached key or value: 2 for a BF16/FP16 cache, 1 for FP8.
    pub kv_bytes: u32,
}

impl Architecture {
    /// KV-cache bytes of one token, all layers and heads: keys and values.
    pub fn kv_bytes_per_token(&self) -> f64 {
        2.0 * f64::from(self.layers)
            * f64::from(self.kv_heads)
            * f64::from(self.head_dim)
            * f64::from(self.kv_bytes)
    }

    /// The weights' bytes, all GPUs together.
    pub fn weights_bytes(&self) -> f64 {
        self.parameters * self.weight_bytes
    }

    /// Why the figures cannot be a model's, if they cannot (a typed-in "other" is checked with it).
    pub fn problem(&self) -> Option<String> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !(positive(self.parameters) && self.parameters <= 1e14) {
            return Some(format!(
                "parameters must be above 0 and at most 1e14 (got {})",
                self.parameters
            ));
        }
        if !(positive(self.active_parameters) && self.active_parameters <= self.parameters) {
            return Some(format!(
                "active parameters must be above 0 and at most the parameters (got {})",
                self.active_parameters
            ));
        }
        if [
            self.layers,
            self.hidden_size,
            self.attention_heads,
            self.kv_heads,
            self.head_dim,
        ]
        .contains(&0)
        {
            return Some(
                "layers, hidden size, heads, KV heads and head size must be above 0".to_owned(),
            );
        }
        if self.kv_heads > self.attention_heads {
            return Some(format!(
                "KV heads ({}) cannot outnumber attention heads ({})",
                self.kv_heads, self.attention_heads
            ));
        }
        let bytes_ok = positive(self.weight_bytes)
            && self.weight_bytes <= 4.0
            && (1..=4).contains(&self.kv_bytes);
        if !bytes_ok {
            return Some("bytes per weight and per cached value must be from 1 to 4".to_owned());
        }
        None
    }
}

/// The fields of a Hugging Face `config.json` the parameter count and the KV cache depend on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelConfig {
    /// `num_hidden_layers`.
    pub layers: u32,
    /// `hidden_size`.
    pub hidden_size: u32,
    /// `intermediate_size` (`ffn_dim` for OPT): one expert's, for a mixture of experts.
    pub intermediate_size: u32,
    /// `num_attention_heads`.
    pub attention_heads: u32,
    /// `num_key_value_heads` (the attention heads when absent).
    pub kv_heads: u32,
    /// `vocab_size`.
    pub vocab_size: u32,
    /// `num_local_experts` (1 for a dense model).
    pub experts: u32,
    /// `num_experts_per_tok` (1 for a dense model).
    pub experts_per_token: u32,
    /// A gated MLP (gate, up and down projections: Llama, Mistral, Qwen) rather than two matrices (OPT).
    pub gated_mlp: bool,
    /// `tie_word_embeddings`: the output layer reuses the embedding matrix.
    pub tied_embeddings: bool,
    /// Learned position embeddings, rows (OPT's `max_position_embeddings` + 2); 0 for rotary.
    pub position_embeddings: u32,
    /// `torch_dtype`'s bytes: 2 for bfloat16 and float16.
    pub dtype_bytes: u32,
}

impl ModelConfig {
    /// Parameters per layer outside the MLP: the attention's projections (with OPT's and Qwen's biases, small
    /// enough to leave out) and the norms.
    fn attention_parameters(&self) -> f64 {
        let (h, heads, kv) = (
            f64::from(self.hidden_size),
            f64::from(self.attention_heads),
            f64::from(self.kv_heads),
        );
        let head_dim = h / heads;
        // Q and O are hidden × hidden; K and V hidden × (KV heads × head size); two norms.
        2.0 * h * h + 2.0 * h * kv * head_dim + 2.0 * h
    }

    fn expert_parameters(&self) -> f64 {
        let matrices = if self.gated_mlp { 3.0 } else { 2.0 };
        matrices * f64::from(self.hidden_size) * f64::from(self.intermediate_size)
    }

    fn embedding_parameters(&self) -> f64 {
        let h = f64::from(self.hidden_size);
        let tables = if self.tied_embeddings { 1.0 } else { 2.0 };
        tables * f64::from(self.vocab_size) * h + f64::from(self.position_embeddings) * h + h
    }

    /// The architecture the roofline uses, the parameter counts worked out from the fields.
    pub fn architecture(&self) -> Architecture {
        let layers = f64::from(self.layers);
        let per_layer = |experts: u32| {
            self.attention_parameters() + f64::from(experts) * self.expert_parameters()
        };
        Architecture {
            parameters: self.embedding_parameters() + layers * per_layer(self.experts),
            active_parameters: self.embedding_parameters()
                + layers * per_layer(self.experts_per_token),
            layers: self.layers,
            hidden_size: self.hidden_size,
            attention_heads: self.attention_heads,
            kv_heads: self.kv_heads,
            head_dim: self.hidden_size / self.attention_heads,
            weight_bytes: f64::from(self.dtype_bytes),
            kv_bytes: self.dtype_bytes,
        }
    }
}

/// A model of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnownModel {
    /// Its Hugging Face id, as a result file's `model_id` has it.
    pub id: &'static str,
    /// Its name in words.
    pub name: &'static str,
    /// Other ids naming the same architecture (instruct and chat variants, point releases).
    pub aliases: &'static [&'static str],
    /// The parameter count its model card publishes, for the check of the fields.
    pub published_parameters: f64,
    /// Its `config.json` fields.
    pub config: ModelConfig,
    /// Where the fields come from.
    pub source: &'static str,
}

impl KnownModel {
    /// Its id and its aliases.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.id).chain(self.aliases.iter().copied())
    }

    /// The architecture the roofline uses.
    pub fn architecture(&self) -> Architecture {
        self.config.architecture()
    }
}

const fn llama(
    layers: u32,
    hidden_size: u32,
    intermediate_size: u32,
    heads: (u32, u32),
    vocab_size: u32,
) -> ModelConfig {
    ModelConfig {
        layers,
        hidden_size,
        intermediate_size,
        attention_heads: heads.0,
        kv_heads: heads.1,
        vocab_size,
        experts: 1,
        experts_per_token: 1,
        gated_mlp: true,
        tied_embeddings: false,
        position_embeddings: 0,
        dtype_bytes: 2,
    }
}

/// Common open models, by their `config.json` on the Hugging Face hub (`huggingface.co/<id>/blob/main/config.json`).
pub const KNOWN_MODELS: [KnownModel; 11] = [
    KnownModel {
        id: "meta-llama/Meta-Llama-3-8B",
        name: "Llama 3 8B",
        aliases: &[
            "meta-llama/Meta-Llama-3-8B-Instruct",
            "meta-llama/Llama-3.1-8B",
            "meta-llama/Llama-3.1-8B-Instruct",
            "meta-llama/Meta-Llama-3.1-8B-Instruct",
        ],
        published_parameters: 8.03e9,
        config: llama(32, 4096, 14336, (32, 8), 128_256),
        source: "huggingface.co/meta-llama/Meta-Llama-3-8B config.json (3.1-8B: the same fields)",
    },
    KnownModel {
        id: "meta-llama/Meta-Llama-3-70B",
        name: "Llama 3 70B",
        aliases: &[
            "meta-llama/Meta-Llama-3-70B-Instruct",
            "meta-llama/Llama-3.1-70B",
            "meta-llama/Llama-3.1-70B-Instruct",
            "meta-llama/Llama-3.3-70B-Instruct",
        ],
        published_parameters: 70.6e9,
        config: llama(80, 8192, 28672, (64, 8), 128_256),
        source:
            "huggingface.co/meta-llama/Meta-Llama-3-70B config.json (3.1 and 3.3: the same fields)",
    },
    KnownModel {
        id: "meta-llama/Llama-2-7b-hf",
        name: "Llama 2 7B",
        aliases: &["meta-llama/Llama-2-7b-chat-hf"],
        published_parameters: 6.74e9,
        config: llama(32, 4096, 11008, (32, 32), 32_000),
        source: "huggingface.co/meta-llama/Llama-2-7b-hf config.json (float16)",
    },
    KnownModel {
        id: "meta-llama/Llama-2-13b-hf",
        name: "Llama 2 13B",
        aliases: &["meta-llama/Llama-2-13b-chat-hf"],
        published_parameters: 13.0e9,
        config: llama(40, 5120, 13824, (40, 40), 32_000),
        source: "huggingface.co/meta-llama/Llama-2-13b-hf config.json (float16)",
    },
    KnownModel {
        id: "meta-llama/Llama-2-70b-hf",
        name: "Llama 2 70B",
        aliases: &["meta-llama/Llama-2-70b-chat-hf"],
        published_parameters: 69.0e9,
        config: llama(80, 8192, 28672, (64, 8), 32_000),
        source: "huggingface.co/meta-llama/Llama-2-70b-hf config.json (float16)",
    },
    KnownModel {
        id: "codellama/CodeLlama-34b-hf",
        name: "Code Llama 34B",
        aliases: &[
            "codellama/CodeLlama-34b-Instruct-hf",
            "codellama/CodeLlama-34b-Python-hf",
        ],
        published_parameters: 33.7e9,
        config: llama(48, 8192, 22016, (64, 8), 32_000),
        source: "huggingface.co/codellama/CodeLlama-34b-hf config.json (bfloat16)",
    },
    KnownModel {
        id: "facebook/opt-13b",
        name: "OPT 13B",
        aliases: &[],
        published_parameters: 12.85e9,
        config: ModelConfig {
            layers: 40,
            hidden_size: 5120,
            intermediate_size: 20480,
            attention_heads: 40,
            kv_heads: 40,
            vocab_size: 50_272,
            experts: 1,
            experts_per_token: 1,
            gated_mlp: false,
            tied_embeddings: true,
            position_embeddings: 2050,
            dtype_bytes: 2,
        },
        source: "huggingface.co/facebook/opt-13b config.json (ffn_dim 20480, float16)",
    },
    KnownModel {
        id: "mistralai/Mistral-7B-v0.1",
        name: "Mistral 7B",
        aliases: &[
            "mistralai/Mistral-7B-Instruct-v0.1",
            "mistralai/Mistral-7B-Instruct-v0.2",
            "mistralai/Mistral-7B-Instruct-v0.3",
            "mistralai/Mistral-7B-v0.3",
        ],
        published_parameters: 7.24e9,
        config: llama(32, 4096, 14336, (32, 8), 32_000),
        source:
            "huggingface.co/mistralai/Mistral-7B-v0.1 config.json (v0.3: a 32 768-token vocabulary)",
    },
    KnownModel {
        id: "mistralai/Mixtral-8x7B-v0.1",
        name: "Mixtral 8x7B",
        aliases: &["mistralai/Mixtral-8x7B-Instruct-v0.1"],
        published_parameters: 46.7e9,
        config: ModelConfig {
            experts: 8,
            experts_per_token: 2,
            ..llama(32, 4096, 14336, (32, 8), 32_000)
        },
        source: "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json (8 experts, 2 a token)",
    },
    KnownModel {
        id: "Qwen/Qwen2.5-7B",
        name: "Qwen2.5 7B",
        aliases: &["Qwen/Qwen2.5-7B-Instruct"],
        published_parameters: 7.61e9,
        config: llama(28, 3584, 18944, (28, 4), 152_064),
        source: "huggingface.co/Qwen/Qwen2.5-7B config.json (bfloat16)",
    },
    KnownModel {
        id: "Qwen/Qwen2.5-72B",
        name: "Qwen2.5 72B",
        aliases: &["Qwen/Qwen2.5-72B-Instruct"],
        published_parameters: 72.7e9,
        config: llama(80, 8192, 29568, (64, 8), 152_064),
        source: "huggingface.co/Qwen/Qwen2.5-72B config.json (bfloat16)",
    },
];

/// A name folded for comparison: the part after the organisation, lower case, letters and digits only.
fn folded(name: &str) -> String {
    let tail = name.rsplit('/').next().unwrap_or(name);
    let folded: String = tail
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    // "Meta-Llama-3-8B" and "Llama-3-8B" are the same model.
    match folded.strip_prefix("meta") {
        Some(rest) if rest.starts_with("llama") => rest.to_owned(),
        _ => folded,
    }
}

/// Suffixes a variant's id adds to its base model's without changing the architecture.
const VARIANT_SUFFIXES: [&str; 8] = ["instruct", "chat", "hf", "it", "base", "v01", "v02", "v03"];

fn without_variant(mut name: String) -> String {
    while let Some(suffix) = VARIANT_SUFFIXES.iter().find(|s| name.ends_with(*s)) {
        name.truncate(name.len() - suffix.len());
    }
    name
}

/// The model a result file's `model_id` (or a name typed in) names: its Hugging Face id or an alias, the
/// organisation and the case left out, an instruct or chat variant taken as its base (a local path ending in the
/// id works too: `/models/meta-llama/Llama-2-7b-hf`).
pub fn find_model(name: &str) -> Option<&'static KnownModel> {
    let wanted = match_key(name);
    if wanted.is_empty() {
        return None;
    }
    KNOWN_MODELS
        .iter()
        .find(|model| model.names().any(|id| match_key(id) == wanted))
}

/// What [`find_model`] compares of a name: two names of one model have the same key. The page matches a result
/// file's `model_id` to its list of models by it, without the table (the list is written at build time).
pub fn match_key(name: &str) -> String {
    without_variant(folded(name.trim().trim_end_matches('/')))
}
