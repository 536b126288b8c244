//! What the lesson does not teach: prices, the field's neighbouring topics, and how to set up tools it never names. A
//! question about one is not answered from the lesson, however many of its other words the lesson uses; it is told
//! so, with the closest section.

use super::vocabulary::normalise_typed;

/// Phrases that ask for what the lesson never gives: a question that holds one is not answered from the lesson,
/// however many of its other words the lesson uses ("h100", "hour", "vllm", "prompt" it may well name). First prices,
/// then the field's neighbouring topics, none of which the lesson teaches (a test holds that the lesson never writes
/// one): adapting and compressing a model, spreading one over GPUs, serving features and engines it does not cover,
/// and the web front end.
pub const UNTAUGHT: &[&str] = &[
    "price",
    "prices",
    "pricing",
    "priced",
    "cost per hour",
    "costs per hour",
    "per gpu hour",
    "gpu hours",
    // Not "hourly" alone: "our hourly traffic" is the fleet's day, which the lesson teaches.
    "hourly rate",
    "hourly price",
    "hourly cost",
    "per month",
    "monthly",
    "dollar",
    "dollars",
    "usd",
    "rent",
    "rental",
    "renting",
    "spot instance",
    "spot instances",
    // Not "spot" alone: "how do I spot the knee" asks what the lesson teaches.
    "spot gpu",
    "spot gpus",
    "cheapest gpu",
    "cheaper gpu",
    // Choosing hardware: the lesson measures the GPUs it names, it does not compare or recommend them.
    "best gpu",
    "best gpus",
    // Not "which gpu should" alone: "which gpu should i watch" asks what the lesson teaches.
    "gpu should i buy",
    "gpus should i buy",
    "gpu should i get",
    "gpus should i get",
    "gpu to buy",
    "buy a gpu",
    "buy gpus",
    "better gpu",
    "gpu vendor",
    "amd",
    "tpu",
    "tpus",
    "mi300",
    "mi300x",
    "gaudi",
    // Adapting and compressing a model.
    "fine tune",
    "fine tuning",
    "fine tuned",
    "finetune",
    "finetuning",
    "finetuned",
    "lora",
    "qlora",
    "adapter",
    "adapters",
    "rlhf",
    "pretraining",
    "distillation",
    "quantize",
    "quantise",
    "quantizing",
    "quantising",
    "quantized",
    "quantised",
    "quantization",
    "quantisation",
    "int4",
    "int8",
    "awq",
    "gptq",
    "gguf",
    // One model over several GPUs.
    "tensor parallel",
    "tensor parallelism",
    "pipeline parallel",
    "pipeline parallelism",
    "expert parallel",
    "shard",
    "sharding",
    "nvlink",
    "infiniband",
    "vram",
    // Serving features and engines the lesson does not cover.
    "prefix caching",
    "prefix cache",
    "prompt caching",
    "prompt cache",
    "speculative decoding",
    "draft model",
    "beam search",
    "structured output",
    "json mode",
    "function calling",
    "tool calling",
    "flash attention",
    "tokenizer",
    "embedding",
    "embeddings",
    "tgi",
    "tensorrt",
    "triton",
    "sglang",
    "ollama",
    "llama cpp",
    "lmdeploy",
    // The web front end.
    "javascript",
    "typescript",
    "css",
    "frontend",
    "front end",
    "websocket",
    "websockets",
];

/// Verbs that ask how to set something up: asked of a thing the lesson never names ("how do I deploy vllm on EKS
/// with terraform", "write a helm chart"), the question is about tooling the lesson does not teach, however many of
/// its other words ("vllm", "chart", "kubernetes") the lesson uses.
pub const SETUP_VERBS: &[&str] = &[
    "install",
    "installing",
    "deploy",
    "deploying",
    "set up",
    "setup",
    "setting up",
    "configure",
    "configuring",
    "write",
    "build",
    "containerize",
    "containerise",
    "dockerize",
    "provision",
    "rotate",
    "enable",
];

/// What `question` asks to set up, when it asks how to set something up ([`SETUP_VERBS`]): the question, normalised,
/// without its setup verbs. A flag's name is not a verb the learner used: "--enable-chunked-prefill" asks to set up
/// nothing.
pub fn set_up(question: &str) -> Option<String> {
    let unflagged: Vec<&str> = question
        .split_whitespace()
        .filter(|word| !word.starts_with("--"))
        .collect();
    let mut said = normalise_typed(&unflagged.join(" "));
    let mut asks = false;
    for verb in SETUP_VERBS {
        let verb = format!(" {verb} ");
        if said.contains(&verb) {
            said = said.replace(&verb, " ");
            asks = true;
        }
    }
    asks.then_some(said)
}

/// Whether `question` asks for what the lesson never gives (see [`UNTAUGHT`]).
pub fn asks_untaught(question: &str) -> bool {
    let said = normalise_typed(question);
    UNTAUGHT
        .iter()
        .any(|phrase| said.contains(&format!(" {phrase} ")))
}
