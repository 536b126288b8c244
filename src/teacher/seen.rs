//! Learners' words for what they see on their own servers and days, and the lesson's words for it: the busy hours
//! are high load, a figure that "lies" is one the lesson says hides the tail, a "bigger batch" is the running batch,
//! "everyone else" the other sequences of an iteration. Part of the vocabulary ([`super::vocabulary`]), which reads
//! these phrases as it reads its own.

/// (What learners write, what the lesson writes), as [`super::vocabulary`]'s own table.
pub(super) const SEEN: &[(&[&str], &str)] = &[
    // Throughput that stops growing, in learners' words: the lesson's knee, where it "stops rising".
    (
        &[
            "plateau",
            "plateaus",
            "plateaued",
            "levels off",
            "leveled off",
            "levelled off",
            "flattens",
            "flattened",
            "flatlines",
            "tops out",
            "topped out",
            "stops growing",
            "stopped growing",
            "stops going up",
        ],
        "stops rising knee",
    ),
    // The busy hours of a day are high load (the lesson's "peak" is a sizing's demand, a number).
    (
        &[
            "peak hours",
            "peak hour",
            "peak time",
            "peak times",
            "busy hours",
            "busy hour",
            "busy times",
            "rush hour",
            "rush hours",
            "busiest time",
        ],
        "load raise knee",
    ),
    // A figure that is no use, in learners' words: what the lesson says hides or vanishes (the tail in a mean, in a
    // closed-loop test); "misleading" is a poor signal's, above.
    (
        &[
            "pointless",
            "useless",
            "meaningless",
            "lying",
            "deceptive",
            "fool me",
            "fools me",
            "fooling me",
        ],
        "hide hides vanish",
    ),
    // Whose a rate or a time is, as learners ask it: throughput is the whole replica's, latency each request's.
    (
        &[
            "per server",
            "per gpu",
            "per box",
            "per machine",
            "per node",
            "per instance",
            "whole server",
            "whole gpu",
            "whole box",
        ],
        "whole replica rate",
    ),
    (
        &[
            "per user",
            "per person",
            "per stream",
            "per chat",
            "each user",
        ],
        "each request",
    ),
    // The batch's size, not its cap ("max batch size", above): a bigger batch makes each decode step slower.
    (
        &[
            "batch size",
            "bigger batch",
            "bigger batches",
            "larger batch",
            "larger batches",
            "full batch",
            "fuller batch",
        ],
        "batch bigger step",
    ),
    // The other requests a replica serves beside one, as learners say it: the batch the lesson's stall waits in.
    (
        &[
            "everyone else",
            "everybody else",
            "everyone in the batch",
            "everybody in the batch",
            "everyone elses",
            "everybody elses",
            "other users",
            "other people",
            "other requests",
            "other streams",
            "other chats",
            "other sequences",
            "other conversations",
            "the others",
            "rest of the batch",
        ],
        "every sequence iteration batch",
    ),
    (
        &[
            "recap",
            "takeaways",
            "key points",
            "main points",
            "sum up",
            "summary of",
        ],
        "wrap up",
    ),
];
