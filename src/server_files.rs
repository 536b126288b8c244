//! The files a learner gives "Your server" (a benchmark's results, a trace, `/metrics` scrapes), as the page holds
//! them before the server's worker calibrates from them: the limits checked before a file is read, pasted text cut
//! into files, and the model and GPU the files name (to fill the hardware fields). Pure and small: the page links
//! it, while the readers and the fit (`goodput-calibrate`, which re-exports these) stay in the worker.

/// One file as handed over: its name (for messages) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    /// How messages name the file (its path, or what the page calls it).
    pub name: String,
    /// Its content.
    pub text: String,
}

/// Largest file accepted: 64 MB (a detailed result of 10 000 requests is a few MB).
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Most files (and pasted texts) one calibration takes: each measures one run, and a dozen already span a server.
pub const MAX_INPUT_FILES: usize = 32;

/// Most bytes one calibration takes in all its files and pasted text together, so that one large file named many
/// times, or many large files, cannot multiply what is held in memory.
pub const MAX_TOTAL_INPUT_BYTES: usize = 2 * MAX_INPUT_BYTES;

/// What one calibration takes, in a sentence for the page and the help: the limits [`check_sizes`] holds to.
pub fn limits() -> String {
    format!(
        "At most {MAX_INPUT_FILES} files (a pasted text counts as one), each at most {} MB and {} MB in all.",
        MAX_INPUT_BYTES >> 20,
        MAX_TOTAL_INPUT_BYTES >> 20
    )
}

/// Refuses inputs, given as their names and sizes in bytes, that are more than [`MAX_INPUT_FILES`] or together
/// larger than [`MAX_TOTAL_INPUT_BYTES`]: checked before the files are read where their sizes are known first.
pub fn check_sizes<'a>(inputs: impl IntoIterator<Item = (&'a str, f64)>) -> Result<(), String> {
    let (mut count, mut total) = (0, 0.0);
    for (name, bytes) in inputs {
        count += 1;
        total += bytes;
        if count > MAX_INPUT_FILES {
            return Err(format!(
                "more than {MAX_INPUT_FILES} inputs (at {name}): calibrate from the runs that differ, a few are enough"
            ));
        }
        if total > MAX_TOTAL_INPUT_BYTES as f64 {
            return Err(format!(
                "the inputs up to {name} come to more than {} MB in all, the limit for one calibration",
                MAX_TOTAL_INPUT_BYTES >> 20
            ));
        }
    }
    Ok(())
}

/// Splits pasted text into the files it holds: several pasted together are separated by a line of `---`. Stops
/// after one more than a calibration takes ([`MAX_INPUT_FILES`]), so that `check_sizes` refuses
/// them by count without the rest being split.
pub fn pasted_files(text: &str) -> Vec<InputFile> {
    let mut files: Vec<InputFile> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, files: &mut Vec<InputFile>| {
        if !current.trim().is_empty() {
            files.push(InputFile {
                name: format!("pasted text {}", files.len() + 1),
                text: std::mem::take(current),
            });
        }
        current.clear();
    };
    for line in text.lines() {
        if line.trim() == "---" {
            flush(&mut current, &mut files);
            if files.len() > MAX_INPUT_FILES {
                return files;
            }
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    flush(&mut current, &mut files);
    if let [only] = files.as_mut_slice() {
        only.name = "pasted text".to_owned();
    }
    files
}

/// What a result file says it ran on: vLLM's benchmarks write `model_id`, and some harnesses (IOG's) add
/// `gpu_name` and `gpu_count`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Named {
    /// `model_id`.
    pub model: Option<String>,
    /// `gpu_name`.
    pub gpu: Option<String>,
    /// `gpu_count`, a number or a string holding one.
    pub gpus: Option<u32>,
}

/// The first names the inputs give (a JSON file's first object), each field from the first file that has it.
pub fn named_in(files: &[InputFile]) -> Named {
    let mut named = Named::default();
    for file in files {
        let text = file.text.trim_start_matches('\u{feff}').trim_start();
        if !text.starts_with('{') {
            continue;
        }
        let Some(Ok(keys)) = serde_json::Deserializer::from_str(text)
            .into_iter::<NameKeys>()
            .next()
        else {
            continue;
        };
        let text_of = |value: Option<Scalar>| {
            value
                .and_then(|v| v.text)
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty() && s.len() <= 200)
        };
        named.model = named.model.or_else(|| text_of(keys.model_id));
        named.gpu = named.gpu.or_else(|| text_of(keys.gpu_name));
        named.gpus = named.gpus.or_else(|| {
            let value = keys.gpu_count?;
            let count = value.count.or_else(|| value.text?.trim().parse().ok())?;
            u32::try_from(count).ok().filter(|&n| n >= 1)
        });
    }
    named
}

/// The keys of a file's first object [`named_in`] reads: every other value is skipped as it is read, never built
/// (as JSON values, a detailed result's lists or 64 MB of small objects take many times the file).
#[derive(serde::Deserialize)]
struct NameKeys {
    #[serde(default)]
    model_id: Option<Scalar>,
    #[serde(default)]
    gpu_name: Option<Scalar>,
    #[serde(default)]
    gpu_count: Option<Scalar>,
}

/// A string or a whole number, as a name's value may be; a list or an object is skipped without being built.
#[derive(Default)]
struct Scalar {
    text: Option<String>,
    count: Option<u64>,
}

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Scalar, E> {
                Ok(Scalar {
                    text: Some(s.to_owned()),
                    count: None,
                })
            }
            fn visit_u64<E>(self, n: u64) -> Result<Scalar, E> {
                Ok(Scalar {
                    text: None,
                    count: Some(n),
                })
            }
            fn visit_i64<E>(self, _: i64) -> Result<Scalar, E> {
                Ok(Scalar::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Scalar, E> {
                Ok(Scalar::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Scalar, E> {
                Ok(Scalar::default())
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar::default())
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Scalar, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Scalar::default())
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Scalar, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Scalar::default())
            }
        }
        deserializer.deserialize_any(Visit)
    }
}
