//! The readers: exact ports of the three seed extractors, each returning its answer and a
//! record of its decisions. No I/O, no printing, no terminal.
//!
//! * [`walk`]: the last-wins reader (seed 000), its trace, its what-if variants, and the
//!   array prefix of a cut reply;
//! * [`first`]: the first-wins bounded reader (seed 001);
//! * [`fence`]: the fence-first reader, the pipeline's original `extractJson`;
//! * [`served`]: leading JSON values and JSON cut short (seed 002);
//! * [`lex`], [`js`], [`value`]: the JavaScript semantics all three rely on: whitespace and
//!   the tokens' ends, `JSON.parse`, and the values it builds;
//! * [`strict`], [`repair`]: the two span readings a candidate gets; [`memo`] and [`ends`]:
//!   what the candidates have in common, computed once per reply;
//! * [`span`], [`trace`](mod@trace): positions and the decision record; [`reprint`]: an
//!   answer printed straight from the reply; [`member`]: one of its strings measured there.

pub mod ends;
pub mod fence;
pub mod first;
pub mod js;
pub mod lex;
pub mod member;
pub mod memo;
pub mod repair;
pub mod reprint;
pub mod served;
pub mod span;
pub mod strict;
pub mod trace;
pub mod value;
pub mod walk;

pub use first::{extract_json_object, first_wins};
pub use served::{json_prefix_of, leading_json_values};
pub use trace::{DecidedBy, Trace};
pub use value::{JsString, Value};
pub use walk::{WalkOptions, extract_json, read_array_prefix, trace};
