//! How much a sweep of the recorded walk (the seed's own reading of every candidate, what
//! `explain` shows) reads. That walk is quadratic on brace-laden text, so a few large replies
//! of the adversarial families are most of what a sweep over the goldens costs. The suite
//! reads every golden reply but those, and the families up to 2 KiB; each sweep's `_in_full`
//! twin reads them all, at full size (`#[ignore]`d; `.ci/run` runs them):
//!
//! ```text
//! cargo test --test readers in_full -- --ignored
//! ```

use bracewalk::exact::value::Value;

use crate::support::corpus::{ADVERSARIAL_FAMILIES, GOLDEN_ADVERSARIAL_SIZES};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// What `cargo test` reads.
    Suite,
    /// Everything, at full size.
    Full,
}

impl Sweep {
    /// Whether the golden reply of `id` is read: in the suite, not the adversarial families
    /// above their smallest size.
    pub fn takes(self, id: &Value) -> bool {
        let id = id.to_json();
        let large = |family| GOLDEN_ADVERSARIAL_SIZES[1..].iter().any(|size| id == format!("\"adv-{family}-{size}\""));
        self == Sweep::Full || !ADVERSARIAL_FAMILIES.iter().any(large)
    }

    /// The sizes the adversarial families are read at, beyond the goldens'.
    pub fn adversarial_sizes(self) -> &'static [usize] {
        match self {
            Sweep::Suite => &[1 << 10, 2 << 10],
            Sweep::Full => &[1 << 10, 16 << 10],
        }
    }
}
