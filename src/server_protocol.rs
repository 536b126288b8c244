//! The messages between the page and its `server-worker` (`src/bin/server-worker/`): one enum per direction,
//! written and read here and nowhere else, so the two ends cannot drift apart (`tests/server_protocol.rs` checks
//! every message both ways). On the wire a message is an array of strings, its kind first; a field that does not
//! read is an error naming it, never a silent default.
//!
//! Strings rather than serde: the page only writes [`ToWorker`] and reads [`FromWorker`], and this loop over strings
//! costs its wasm less than the derived (de)serializers would.

use std::fmt;

use crate::cluster::vllm::SloTargets;
use crate::server_files::InputFile;

/// The kind the worker loader posts when the worker's script or wasm cannot load (see `components::worker`).
pub const FAILED: &str = "failed";
/// The kind the worker loader (or the worker's panic hook) posts when the worker failed while it ran.
pub const CRASHED: &str = "crashed";

/// The page's sample `/metrics` pages, kept in the worker beside the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    /// A server well below its knee.
    Healthy,
    /// A server past its knee.
    PastTheKnee,
    /// The healthy server scraped again after its load rose past saturation: two pages.
    FellBehind,
}

impl Sample {
    /// Every sample, in the order the reader offers them.
    pub const ALL: [Sample; 3] = [Sample::Healthy, Sample::PastTheKnee, Sample::FellBehind];

    /// Its name on the wire.
    pub fn key(self) -> &'static str {
        match self {
            Sample::Healthy => "healthy",
            Sample::PastTheKnee => "past-the-knee",
            Sample::FellBehind => "fell-behind",
        }
    }
}

/// The server's flags as the learner typed them (each empty when not given): the worker checks them, so a bad one is
/// refused with the calibration's own message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlagFields {
    pub max_num_seqs: String,
    pub max_num_batched_tokens: String,
    pub chunked_prefill: bool,
    /// vLLM's V0 engine (`VLLM_USE_V1=0`, or a vLLM before 0.8), whose scheduler runs prompts in steps of their own
    /// unless chunked prefill is on.
    pub v0_engine: bool,
    pub kv_cache_tokens: String,
    pub replicas: String,
    /// The model: a Hugging Face id of the table (`crate::model::hardware::KNOWN_MODELS`), [`OTHER`] for the
    /// figures typed in, or empty for the one the files name.
    pub model: String,
    /// The GPU: a name of the table, [`OTHER`], or empty for the one the files name.
    pub gpu: String,
    /// GPUs one replica spans (empty: the files' `gpu_count`, else 1).
    pub tensor_parallel: String,
    /// The figures of an "other" model or GPU (boxed: they are seldom given, and the message stays small).
    pub figures: Box<HardwareFigures>,
}

/// The value of the model's or the GPU's list that stands for figures typed in.
pub const OTHER: &str = "other";

/// The figures typed in for a model or a GPU the tables lack, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HardwareFigures {
    /// Parameters, billions.
    pub parameters_billions: String,
    pub layers: String,
    pub hidden_size: String,
    pub kv_heads: String,
    pub head_size: String,
    /// Bytes per weight and per cached value (2 for BF16).
    pub dtype_bytes: String,
    /// Memory bandwidth, TB/s.
    pub bandwidth_tb_s: String,
    /// Dense tensor peak at the dtype, TFLOP/s.
    pub peak_tflops: String,
    /// Memory, GB.
    pub memory_gb: String,
}

impl HardwareFigures {
    /// The fields' names, in their order on the wire.
    pub const NAMES: [&'static str; 9] = [
        "parameters (billions)",
        "layers",
        "hidden size",
        "KV heads",
        "head size",
        "bytes per weight",
        "bandwidth (TB/s)",
        "peak (TFLOP/s)",
        "memory (GB)",
    ];

    /// The fields with their names, in their order on the wire.
    pub fn named(&self) -> [(&'static str, &String); 9] {
        let values = [
            &self.parameters_billions,
            &self.layers,
            &self.hidden_size,
            &self.kv_heads,
            &self.head_size,
            &self.dtype_bytes,
            &self.bandwidth_tb_s,
            &self.peak_tflops,
            &self.memory_gb,
        ];
        let mut names = HardwareFigures::NAMES.into_iter();
        values.map(|value| (names.next().expect("a name a field"), value))
    }

    fn read(fields: &mut Fields) -> Result<HardwareFigures, ProtocolError> {
        let mut names = HardwareFigures::NAMES.into_iter();
        let mut next = || fields.text(names.next().expect("a name a field"));
        // Fields are read in the order they are written here, the order of NAMES.
        Ok(HardwareFigures {
            parameters_billions: next()?,
            layers: next()?,
            hidden_size: next()?,
            kv_heads: next()?,
            head_size: next()?,
            dtype_bytes: next()?,
            bandwidth_tb_s: next()?,
            peak_tflops: next()?,
            memory_gb: next()?,
        })
    }
}

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ToWorker {
    /// Read the metrics reader's two boxes: the window between them (`seconds`, when known), against `slo`, the
    /// first `shown` label sets. `request` numbers the question so a late answer can be told from the latest.
    Read {
        first: String,
        later: String,
        seconds: Option<f64>,
        slo: SloTargets,
        shown: usize,
        request: u32,
    },
    /// Send a sample's pages.
    Sample(Sample),
    /// Calibrate "Your server" from `files` and the typed flags.
    Calibrate {
        flags: FlagFields,
        files: Vec<InputFile>,
    },
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq)]
pub enum FromWorker {
    /// The reader's view: its alert and its result, as HTML, for request `request`.
    Reading {
        alert_html: String,
        result_html: String,
        request: u32,
    },
    /// A sample's first page and later page (empty when it has one).
    Sample { first: String, later: String },
    /// A calibration: the server in its handoff form (`crate::model::handoff`), the fit's report, the scenario file, and how long the worker took, milliseconds.
    Calibrated {
        handoff: String,
        report: String,
        scenario_json: String,
        milliseconds: u32,
    },
    /// How sure the calibration just sent is: the same server in its handoff form, now with its band, and the report
    /// with the capacity and the knee as ranges (worked out after `Calibrated`, so the lab runs the server at once).
    Banded { handoff: String, report: String },
    /// The calibration cannot be done: one line naming the file or field at fault.
    Refused(String),
    /// The worker could not read the page's message (a page and a worker of different builds): what was wrong.
    Unreadable(String),
    /// The worker's script or wasm did not load: what the browser said.
    Failed(String),
    /// The worker failed while it ran: what it said.
    Crashed(String),
}

/// A message that does not read: which message, which field, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError(pub(crate) String);

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProtocolError {}

/// Reads a message's fields in order, naming the one at fault (the fleet worker's messages use it too).
pub(crate) struct Fields<'a> {
    pub(crate) kind: &'a str,
    parts: &'a [String],
    next: usize,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(parts: &'a [String]) -> Result<Self, ProtocolError> {
        let kind = parts
            .first()
            .ok_or_else(|| ProtocolError("an empty message".to_owned()))?;
        Ok(Fields {
            kind,
            parts,
            next: 1,
        })
    }

    pub(crate) fn error(&self, name: &str, problem: &str) -> ProtocolError {
        ProtocolError(format!("a {:?} message's {name} {problem}", self.kind))
    }

    pub(crate) fn text(&mut self, name: &str) -> Result<String, ProtocolError> {
        let field = self
            .parts
            .get(self.next)
            .ok_or_else(|| self.error(name, "is missing"))?;
        self.next += 1;
        Ok(field.clone())
    }

    pub(crate) fn number<T: std::str::FromStr>(&mut self, name: &str) -> Result<T, ProtocolError> {
        let text = self.text(name)?;
        text.parse()
            .map_err(|_| self.error(name, &format!("is {text:?}, not a number")))
    }

    /// The one of `all` whose `key` the field is.
    pub(crate) fn pick<T: Copy>(
        &mut self,
        name: &str,
        all: &[T],
        key: fn(T) -> &'static str,
    ) -> Result<T, ProtocolError> {
        let text = self.text(name)?;
        all.iter()
            .copied()
            .find(|item| key(*item) == text)
            .ok_or_else(|| self.error(name, &format!("is {text:?}, which it does not know")))
    }

    fn positive(&mut self, name: &str) -> Result<f64, ProtocolError> {
        let value: f64 = self.number(name)?;
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(self.error(name, &format!("is {value}, not a positive number")))
        }
    }

    fn flag(&mut self, name: &str) -> Result<bool, ProtocolError> {
        match self.text(name)?.as_str() {
            "on" => Ok(true),
            "off" => Ok(false),
            other => Err(self.error(name, &format!("is {other:?}, not \"on\" or \"off\""))),
        }
    }

    /// What is left, which must be pairs of a file's name and its text.
    fn files(&mut self) -> Result<Vec<InputFile>, ProtocolError> {
        let rest = &self.parts[self.next.min(self.parts.len())..];
        if !rest.len().is_multiple_of(2) {
            return Err(self.error("last file", "has a name and no text"));
        }
        self.next = self.parts.len();
        Ok(rest
            .chunks(2)
            .map(|pair| InputFile {
                name: pair[0].clone(),
                text: pair[1].clone(),
            })
            .collect())
    }

    pub(crate) fn end(self) -> Result<(), ProtocolError> {
        match self.parts.len() - self.next.min(self.parts.len()) {
            0 => Ok(()),
            extra => Err(ProtocolError(format!(
                "a {:?} message has {extra} field(s) too many",
                self.kind
            ))),
        }
    }
}

fn on_off(on: bool) -> String {
    (if on { "on" } else { "off" }).to_owned()
}

impl ToWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        match self {
            ToWorker::Read {
                first,
                later,
                seconds,
                slo,
                shown,
                request,
            } => vec![
                "read".to_owned(),
                first.clone(),
                later.clone(),
                seconds.map(|s| s.to_string()).unwrap_or_default(),
                slo.ttft_p99.to_string(),
                slo.tpot_p95.to_string(),
                shown.to_string(),
                request.to_string(),
            ],
            ToWorker::Sample(sample) => vec!["sample".to_owned(), sample.key().to_owned()],
            ToWorker::Calibrate { flags, files } => {
                let mut parts = vec![
                    "calibrate".to_owned(),
                    flags.max_num_seqs.clone(),
                    flags.max_num_batched_tokens.clone(),
                    on_off(flags.chunked_prefill),
                    on_off(flags.v0_engine),
                    flags.kv_cache_tokens.clone(),
                    flags.replicas.clone(),
                    flags.model.clone(),
                    flags.gpu.clone(),
                    flags.tensor_parallel.clone(),
                ];
                parts.extend(flags.figures.named().map(|(_, value)| value.clone()));
                for file in files {
                    parts.extend([file.name.clone(), file.text.clone()]);
                }
                parts
            }
        }
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<ToWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        let message = match fields.kind {
            "read" => ToWorker::Read {
                first: fields.text("first page")?,
                later: fields.text("later page")?,
                seconds: match fields.text("seconds")?.as_str() {
                    "" => None,
                    text => Some(text.parse().map_err(|_| {
                        fields.error("seconds", &format!("is {text:?}, not a number"))
                    })?),
                },
                slo: SloTargets {
                    ttft_p99: fields.positive("TTFT objective")?,
                    tpot_p95: fields.positive("TPOT objective")?,
                },
                shown: fields.number("reports shown")?,
                request: fields.number("request number")?,
            },
            "sample" => {
                let key = fields.text("sample")?;
                let sample = Sample::ALL
                    .into_iter()
                    .find(|s| s.key() == key)
                    .ok_or_else(|| fields.error("sample", &format!("{key:?} is no sample")))?;
                ToWorker::Sample(sample)
            }
            "calibrate" => ToWorker::Calibrate {
                flags: FlagFields {
                    max_num_seqs: fields.text("--max-num-seqs")?,
                    max_num_batched_tokens: fields.text("--max-num-batched-tokens")?,
                    chunked_prefill: fields.flag("chunked prefill")?,
                    v0_engine: fields.flag("V0 engine")?,
                    kv_cache_tokens: fields.text("KV cache tokens")?,
                    replicas: fields.text("replicas")?,
                    model: fields.text("model")?,
                    gpu: fields.text("GPU")?,
                    tensor_parallel: fields.text("tensor parallel")?,
                    figures: Box::new(HardwareFigures::read(&mut fields)?),
                },
                files: fields.files()?,
            },
            other => {
                return Err(ProtocolError(format!(
                    "{other:?} is no request the worker knows"
                )))
            }
        };
        fields.end()?;
        Ok(message)
    }
}

impl FromWorker {
    /// The message on the wire.
    pub fn encode(&self) -> Vec<String> {
        let parts: Vec<&str> = match self {
            FromWorker::Reading {
                alert_html,
                result_html,
                request,
            } => {
                return vec![
                    "reading".to_owned(),
                    alert_html.clone(),
                    result_html.clone(),
                    request.to_string(),
                ]
            }
            FromWorker::Sample { first, later } => vec!["sample", first, later],
            FromWorker::Calibrated {
                handoff,
                report,
                scenario_json,
                milliseconds,
            } => {
                return vec![
                    "calibrated".to_owned(),
                    handoff.clone(),
                    report.clone(),
                    scenario_json.clone(),
                    milliseconds.to_string(),
                ]
            }
            FromWorker::Banded { handoff, report } => vec!["banded", handoff, report],
            FromWorker::Refused(line) => vec!["refused", line],
            FromWorker::Unreadable(line) => vec!["unreadable", line],
            FromWorker::Failed(line) => vec![FAILED, line],
            FromWorker::Crashed(line) => vec![CRASHED, line],
        };
        parts.into_iter().map(str::to_owned).collect()
    }

    /// The message `parts` make, or what is wrong with them.
    pub fn decode(parts: &[String]) -> Result<FromWorker, ProtocolError> {
        let mut fields = Fields::new(parts)?;
        let message = match fields.kind {
            "reading" => FromWorker::Reading {
                alert_html: fields.text("alert")?,
                result_html: fields.text("result")?,
                request: fields.number("request number")?,
            },
            "sample" => FromWorker::Sample {
                first: fields.text("first page")?,
                later: fields.text("later page")?,
            },
            "calibrated" => FromWorker::Calibrated {
                handoff: fields.text("server")?,
                report: fields.text("report")?,
                scenario_json: fields.text("scenario file")?,
                milliseconds: fields.number("milliseconds")?,
            },
            "banded" => FromWorker::Banded {
                handoff: fields.text("server")?,
                report: fields.text("report")?,
            },
            "refused" => FromWorker::Refused(fields.text("reason")?),
            "unreadable" => FromWorker::Unreadable(fields.text("reason")?),
            FAILED => FromWorker::Failed(fields.text("reason")?),
            CRASHED => FromWorker::Crashed(fields.text("reason")?),
            other => {
                return Err(ProtocolError(format!(
                    "{other:?} is no answer the page knows"
                )))
            }
        };
        fields.end()?;
        Ok(message)
    }
}
