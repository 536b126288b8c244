//! The sample lesson the compiler's tests start from (`src/lesson/compiler/tests/compile.rs`,
//! `tests/lesson_hostile.rs`).

pub const FILE: &str = "lessons/99-sample.md";

/// Front matter on lines 1–8, so a body's first line is line 9.
pub const FRONT_MATTER: &str = "+++
title = \"Sample\"
number = 99
slug = \"sample\"
summary = \"A sample.\"
objectives = [\"Learn.\"]
minutes = 3
+++
";
