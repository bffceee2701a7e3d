//! The memoized validator: the JSON grammar, strictly or under the repair's string rule,
//! read from a position of the reply with every outcome it learns kept for the next question.

use crate::exact::lex::{next_string_special, scalar_end, simple_escape};
use crate::exact::repair::{AfterQuote, after_quote, after_quote_ascii, escaped_before_plain, is_escape, quote_closes};

use std::collections::HashMap;

use super::flat::{self, Flat, Slot};
use super::table::{Containers, Frame, Strings};
use super::{Carries, Carrying, MEMO_MIN, Mode, Outcome, Work, kept};

/// Memoized validation of candidate readings for one reply, in one mode.
pub struct Validator<'a> {
    text: &'a str,
    bytes: &'a [u8],
    mode: Mode,
    /// Outcomes of containers, by start position. Only containers whose outcome lies far
    /// from their start are kept: a short one is cheaper to re-read than to store.
    containers: Containers,
    /// Outcomes of strings, by the position of the quote that opens them (shared by every
    /// quote the scan passed over inside them).
    strings: Strings,
    /// In the narrow mode, the outcomes of strings in key position (`strings` holds the
    /// others).
    keys: Strings,
    /// Scratch space reused across calls: the open containers.
    stack: Vec<Frame>,
    /// Successes learned while answering the current question, stored only if its answer
    /// is a failure ([`Validator::settle`]).
    pending: Vec<Pending>,
    /// In the wide mode, where asked to keep them ([`Validator::keep_colon_stops`]): where
    /// each object this validator read failed at a value's quote that `:` follows, by the
    /// object's start.
    colon_stops: Option<HashMap<usize, ColonStop, foldhash::fast::RandomState>>,
    /// Outcomes at least this far from their start are stored.
    memo_min: usize,
    pub work: Work,
}

impl Drop for Validator<'_> {
    /// Hands the stack back to the thread, emptied, where it is not too large to keep.
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.stack);
        if stack.capacity() == 0 || stack.capacity() > KEPT_FRAMES {
            return;
        }
        stack.clear();
        kept::keep(&STACKS, KEPT_STACKS, Some(stack));
    }
}

/// The longest string the validator's loop reads itself ([`Validator::string_in_loop`]):
/// shorter than [`MEMO_MIN`], so never one the memo holds.
const SHORT_STRING: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// After `{`: a key or `}`.
    KeyOrClose,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`. (A key's colon is read with the key, so this names only where a
    /// failure after a key happened.)
    Colon,
    /// After `:` or `[` or `,` in an array: a value (or, after `[`, `]`).
    Value,
    ValueOrClose,
    /// After a value: `,` or the closer.
    CommaOrClose,
}

/// Where the wide reading of an object failed at the `:` after a value's closing quote: the
/// containers it had open, outermost (the object) first, and the quote. The narrow reading
/// of the object reads the same up to that quote, and on from it as a string
/// ([`Validator::object_at_resuming`]).
pub struct ColonStop {
    frames: Vec<Frame>,
    quote: usize,
}

/// The most containers a [`ColonStop`] keeps open: deeper stops are not kept, so that a reply
/// nested deep keeps no more than this much a failure.
const STOP_FRAMES: usize = 32;

/// A success waiting on the answer to the question it was learned in.
#[derive(Clone, Copy)]
struct Pending {
    table: Which,
    pos: usize,
    end: usize,
}

/// Which table an outcome belongs in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Containers,
    Strings,
    Keys,
}

thread_local! {
    /// Stacks of open containers the thread's validators are done with, for the next ones.
    static STACKS: std::cell::Cell<Vec<Vec<Frame>>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Stacks a thread keeps, and the most frames each may hold. A reply nested deep (`{"a":`
/// by the megabyte) opens a frame for each of its braces: a stack fresh for each reply, grown
/// by doubling, was memory faulted in afresh, most of the time of a batch of them.
const KEPT_STACKS: usize = 2;
const KEPT_FRAMES: usize = 1 << 18;

impl<'a> Validator<'a> {
    pub fn new(text: &'a str, mode: Mode) -> Validator<'a> {
        Validator::storing(text, mode, MEMO_MIN)
    }

    /// A validator that will be asked one question, so stores nothing: one reading visits
    /// each container and each string once, and nothing asks it again.
    pub fn once(text: &'a str, mode: Mode) -> Validator<'a> {
        Validator::storing(text, mode, usize::MAX)
    }

    fn storing(text: &'a str, mode: Mode, memo_min: usize) -> Validator<'a> {
        let stack = kept::take(&STACKS).unwrap_or_default();
        Validator {
            text,
            bytes: text.as_bytes(),
            mode,
            containers: Containers::default(),
            strings: Strings::default(),
            keys: Strings::default(),
            stack,
            pending: Vec::new(),
            colon_stops: None,
            memo_min,
            work: Work::default(),
        }
    }

    /// Does this mode's reading of the object at `start` parse? `Ok(end)` when it does
    /// (`end` is the reading's span end), `Err(at)` with where it fails when it does not.
    pub fn object_at(&mut self, start: usize) -> Outcome {
        self.object_at_knowing(start, None)
    }

    /// Keeps, from now on, where each object this wide validator reads fails at the `:` after
    /// a value's quote ([`ColonStop`]), for the narrow reading of the same object: readers
    /// that make both readings of the reply's candidates ask for them.
    pub fn keep_colon_stops(&mut self) {
        if self.mode == Mode::Wide {
            self.colon_stops.get_or_insert_with(HashMap::default);
        }
    }

    /// Where this wide validator's reading of the object at `start` failed at the `:` after
    /// a value's quote, where it read that object itself and kept where.
    pub fn colon_stop(&self, start: usize) -> Option<&ColonStop> {
        self.colon_stops.as_ref()?.get(&start)
    }

    /// [`Validator::object_at_knowing`] in the narrow mode, for an object whose wide reading
    /// stopped at `stop`: read on from the stop, not from the object's start.
    ///
    /// The two colon rules part only at a value string's quote that `:` follows, which the
    /// wide rule closes and the narrow one reads past ([`super::narrow_as_wide`]). Up to the
    /// first such quote the two readings make the same tokens, and the wide reading fails just
    /// past the first one it closes: the stop. So at the stop the narrow reading has the same
    /// containers open, and is inside a string that goes on as one opened at the stop's quote
    /// goes on (the quote leaves it inside, as an opening quote does).
    pub fn object_at_resuming(&mut self, start: usize, stop: &ColonStop, strict: Option<&Validator>) -> Outcome {
        let strict = strict.map(|v| &v.containers);
        let outcome = match self.known(start, strict) {
            Some(known) => known,
            None => {
                let mut stack = std::mem::take(&mut self.stack);
                stack.clear();
                stack.extend_from_slice(&stop.frames);
                let outcome = match self.string_at(stop.quote, false) {
                    Ok(end) => {
                        self.work.bytes += 1;
                        self.read_open(&mut stack, end, Expect::CommaOrClose, strict)
                    }
                    Err(f) => Err(self.fail_all(&mut stack, f, Carries::Neither)),
                };
                self.stack = stack;
                outcome
            }
        };
        self.settle(outcome).map_err(|(at, _)| at)
    }

    /// Keeps where the object at the bottom of `stack` failed: at the `:` after the value
    /// string whose closing quote is at `quote`.
    #[cold]
    #[inline(never)]
    fn keep_colon_stop(&mut self, stack: &[Frame], quote: usize) {
        if let (Some(stops), Some(bottom)) = (self.colon_stops.as_mut(), stack.first())
            && stack.len() <= STOP_FRAMES
        {
            stops.insert(bottom.start(), ColonStop { frames: stack.to_vec(), quote });
        }
    }

    /// Whether the memo holds the outcome of the container at `start`.
    #[inline]
    pub fn knows(&self, start: usize) -> bool {
        !self.containers.is_empty() && self.containers.get_carrying(start).is_some()
    }

    /// The first position at or after `from` where a `{` is not already known to fail with a
    /// failure carrying at least `carried`, as far as the group of containers that failed
    /// together says (the memo's group): its braces are passed over 64 bytes at a time. (A
    /// position returned may hold no brace, or one the table knows; the caller reads on.)
    #[inline]
    pub fn past_known_failures(&mut self, from: usize, carried: Carries) -> usize {
        match self.containers.group.as_ref() {
            Some(group) if group.carries >= carried && group.spans(from) => {
                group.past_braces(self.bytes, from, &mut self.work)
            }
            _ => from,
        }
    }

    /// [`Validator::object_at`], in a repaired mode, taking what the strict validator of the
    /// same reply already knows.
    ///
    /// A container that reads strictly reads the same repaired. Every string in it closes on
    /// a quote the grammar follows with `:` (a key) or `,` `}` `]` (a value), which is where
    /// the repair's lookahead closes it too, under either colon rule; its escapes are JSON's,
    /// which the repair keeps; it has no raw control character for the repair to escape.
    ///
    /// A container that fails strictly fails the same repaired where its failure
    /// [`Carries`] to this mode's reading; see [`Validator::object_at_carrying`].
    pub fn object_at_knowing(&mut self, start: usize, strict: Option<&Validator>) -> Outcome {
        let strict = strict.filter(|_| self.mode != Mode::Strict).map(|v| &v.containers);
        self.object_knowing(start, strict).map_err(|(at, _)| at)
    }

    /// [`Validator::object_at`], with what a failure carries: in the strict mode, which
    /// repaired readings of the same object fail at the same place, so need not be made.
    ///
    /// The repair departs from the strict reading only inside strings, at three kinds of
    /// byte: a `"` that the repair's lookahead does not let close (strict closes every one),
    /// a backslash that begins no JSON escape (strict fails there, the repair doubles it),
    /// and a raw LF, CR or tab (strict fails there, the repair escapes it). Where none of
    /// those occurs up to the strict failure, the repaired reading makes the same tokens
    /// with the same grammar, so it fails at the same place. And none can occur BEFORE the
    /// failure: the last two make strict fail where they stand, and a quote strict closed
    /// is followed, after JSON whitespace, by `:` after a key or `,` `}` `]` after a value,
    /// or strict fails right there. So whether the repair departs is a question about the
    /// failure alone:
    ///
    /// * failing inside a string, at a backslash, LF, CR or tab: it departs (any other
    ///   control character, or the end of the text, fails both);
    /// * failing at the first token after a string: it departs where the repair's lookahead
    ///   does not close that string's quote, under the wide rule (`:` closes) or the narrow
    ///   one (`:` closes only a key, which the grammar says as it does for the repair);
    /// * failing anywhere else: it does not.
    ///
    /// A container that fails where a memoized one fails carries what that one carries.
    /// Outside the strict mode what a failure carries means nothing, and is `Neither`.
    pub fn object_at_carrying(&mut self, start: usize) -> Carrying {
        self.object_knowing(start, None)
    }

    fn object_knowing(&mut self, start: usize, strict: Option<&Containers>) -> Carrying {
        let outcome = self.object_asked(start, strict);
        self.settle(outcome)
    }

    fn object_asked(&mut self, start: usize, strict: Option<&Containers>) -> Carrying {
        let bytes = self.bytes;
        if bytes.get(start) != Some(&b'{') {
            return Err((start, Carries::Both));
        }
        // An object's first token is a key or its `}`: most prose braces fail right here,
        // without a lookup.
        let first = self.skip_ws(start + 1);
        match bytes.get(first) {
            Some(b'"') => {}
            Some(b'}') => return Ok(first + 1),
            _ => return Err((first, Carries::Both)),
        }
        if let Some(known) = self.known(start, strict) {
            return known;
        }
        // A small flat object is read without opening a frame.
        match flat::object(bytes, start, self.mode) {
            Flat::Reads(end) => {
                self.work.bytes += (end - start) as u64;
                return Ok(end);
            }
            Flat::Fails(at, after, quote) => {
                self.work.bytes += (at - start) as u64;
                let expect = match after {
                    Slot::Key => Expect::Colon,
                    Slot::Value => Expect::CommaOrClose,
                };
                return Err((at, self.token_failure(expect, quote)));
            }
            Flat::Unknown => {}
        }
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(Frame::new(start, true));
        let outcome = self.read_open(&mut stack, first, Expect::KeyOrClose, strict);
        self.stack = stack;
        outcome
    }

    #[inline]
    fn skip_ws(&mut self, mut at: usize) -> usize {
        // Most tokens follow the last with no whitespace between.
        if self.bytes.get(at).is_none_or(|&b| b > b' ') {
            return at;
        }
        let from = at;
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(at) {
            at += 1;
        }
        self.work.bytes += (at - from) as u64;
        at
    }

    /// Validates the JSON value starting at `at`: `Ok(end)` or `Err(where it fails)`.
    pub fn value_at(&mut self, at: usize) -> Outcome {
        self.value_knowing(at, None).map_err(|(at, _)| at)
    }

    /// [`Validator::value_at`], taking the strict reading's container outcomes where given,
    /// on the scratch stack kept between calls.
    fn value_knowing(&mut self, at: usize, strict: Option<&Containers>) -> Carrying {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let outcome = self.value_in(&mut stack, at, strict);
        self.stack = stack;
        self.settle(outcome)
    }

    /// Stores the successes learned while answering a question whose answer is `outcome`, if
    /// it is a failure; forgets them if it is a success.
    ///
    /// A success is needed again only where the walk goes inside what it was learned in. Asked
    /// about a container that reads, the walk jumps past it, so nothing inside it is asked
    /// about again (the whole-reply reading may pass over it, once). Asked about one that
    /// fails, the walk descends into it, and then the successes inside it are what keep the
    /// descent linear: in `{"{"{"{"…{"a": S x` every candidate's wide reading reaches `S`
    /// (the string from each inner quote ends where the outer one does), so without `S`'s
    /// success each would re-read it.
    #[inline]
    fn settle(&mut self, outcome: Carrying) -> Carrying {
        if !self.pending.is_empty() {
            self.settle_pending(outcome.is_err());
        }
        outcome
    }

    #[inline(never)]
    fn settle_pending(&mut self, failed: bool) {
        if failed {
            let mut pending = std::mem::take(&mut self.pending);
            for p in pending.drain(..) {
                let table = match p.table {
                    Which::Containers => &mut self.containers.table,
                    Which::Strings => &mut self.strings.table,
                    Which::Keys => &mut self.keys.table,
                };
                table.set(p.pos, Ok(p.end));
            }
            self.pending = pending;
        } else {
            self.pending.clear();
        }
    }

    /// Which table holds strings like this one: in the narrow mode, keys apart.
    fn string_table(&self, key: bool) -> Which {
        if key && self.mode == Mode::Narrow { Which::Keys } else { Which::Strings }
    }

    /// The validator proper: one loop, one token per turn, the innermost container's
    /// expectation in a local.
    fn value_in(&mut self, stack: &mut Vec<Frame>, start: usize, strict: Option<&Containers>) -> Carrying {
        let bytes = self.bytes;
        // A scalar is read whole; a container is opened and read by the loop.
        let expect = match bytes.get(start) {
            Some(b'{' | b'[') => match self.known(start, strict) {
                Some(outcome) => return outcome,
                None => self.open(stack, start),
            },
            Some(b'"') => return self.string_carrying(start, false),
            Some(_) => return self.literal_at(start).map_err(|f| (f, Carries::Both)),
            None => return Err((start, Carries::Both)),
        };
        self.read_open(stack, start + 1, expect, strict)
    }

    /// The loop: reads on from `at` inside the containers open on `stack`, the innermost
    /// expecting `expect`, until the outermost closes or all fail.
    fn read_open(
        &mut self,
        stack: &mut Vec<Frame>,
        at: usize,
        expect: Expect,
        strict: Option<&Containers>,
    ) -> Carrying {
        let bytes = self.bytes;
        let (mut at, mut expect) = (at, expect);
        // The closing quote of the value just read, when it was a string.
        let mut quote: Option<usize> = None;
        // Whether the innermost container is an object.
        let mut object = stack.last().is_some_and(|f| f.object());
        loop {
            at = self.skip_ws(at);
            self.work.bytes += 1;
            let b = bytes.get(at).copied();
            let ended = match (expect, b) {
                (Expect::Value | Expect::ValueOrClose, Some(b'{' | b'[')) => match self.known(at, strict) {
                    Some(outcome) => outcome,
                    None => {
                        expect = self.open(stack, at);
                        object = b == Some(b'{');
                        at += 1;
                        continue;
                    }
                },
                (Expect::Value | Expect::ValueOrClose, Some(b'"')) => self.string_carrying(at, false),
                (Expect::ValueOrClose, Some(b']'))
                | (Expect::KeyOrClose, Some(b'}'))
                | (Expect::CommaOrClose, Some(b'}' | b']')) => {
                    let closer = if object { b'}' } else { b']' };
                    if b != Some(closer) {
                        let carries = self.token_failure(expect, quote);
                        return Err(self.fail_all(stack, at, carries));
                    }
                    at += 1;
                    let Some(frame) = stack.pop() else { return Ok(at) };
                    if stack.is_empty() {
                        self.remember_asked(frame.start(), at);
                        return Ok(at);
                    }
                    self.remember(frame.start(), at);
                    object = stack.last().is_some_and(|f| f.object());
                    // A container is a value of its parent.
                    expect = Expect::CommaOrClose;
                    quote = None;
                    continue;
                }
                (Expect::Value | Expect::ValueOrClose, Some(_)) => self.literal_at(at).map_err(|f| (f, Carries::Both)),
                (Expect::Key | Expect::KeyOrClose, Some(b'"')) => self.string_in_loop(at, true),
                (Expect::CommaOrClose, Some(b',')) => {
                    expect = if object { Expect::Key } else { Expect::Value };
                    at += 1;
                    continue;
                }
                _ => {
                    if self.colon_stops.is_some()
                        && expect == Expect::CommaOrClose
                        && b == Some(b':')
                        && let Some(q) = quote
                    {
                        self.keep_colon_stop(stack, q);
                    }
                    let carries = self.token_failure(expect, quote);
                    return Err(self.fail_all(stack, at, carries));
                }
            };
            // A value ended here (or failed, and with it every open container).
            match ended {
                // A key: its colon is all that may follow, so it is read here.
                Ok(end) if matches!(expect, Expect::Key | Expect::KeyOrClose) => {
                    let colon = self.skip_ws(end);
                    self.work.bytes += 1;
                    if bytes.get(colon) != Some(&b':') {
                        let carries = self.token_failure(Expect::Colon, Some(end - 1));
                        return Err(self.fail_all(stack, colon, carries));
                    }
                    expect = Expect::Value;
                    at = colon + 1;
                }
                Ok(end) => {
                    quote = (b == Some(b'"')).then(|| end - 1);
                    expect = Expect::CommaOrClose;
                    at = end;
                }
                Err((f, carries)) => return Err(self.fail_all(stack, f, carries)),
            }
        }
    }

    /// The memoized outcome of the container at `at`, this mode's own or the strict one's
    /// where it holds for this mode too.
    #[inline]
    fn known(&mut self, at: usize, strict: Option<&Containers>) -> Option<Carrying> {
        // A first reading of the reply has nothing to look up.
        if self.containers.is_empty() && strict.is_none_or(Containers::is_empty) {
            return None;
        }
        self.known_in_tables(at, strict)
    }

    #[inline(never)]
    fn known_in_tables(&mut self, at: usize, strict: Option<&Containers>) -> Option<Carrying> {
        let mode = self.mode;
        let known = self.containers.get_carrying(at).or_else(|| {
            strict?.get_carrying(at).filter(|o| match o {
                Ok(_) => true,
                Err((_, carries)) => carries.to(mode),
            })
        })?;
        self.work.hits += 1;
        Some(known)
    }

    /// Opens the container at `at`: what it expects first.
    fn open(&mut self, stack: &mut Vec<Frame>, at: usize) -> Expect {
        self.work.bytes += 1;
        let object = self.bytes.get(at) == Some(&b'{');
        stack.push(Frame::new(at, object));
        if object { Expect::KeyOrClose } else { Expect::ValueOrClose }
    }

    /// What a failure at a token carries ([`Validator::object_at_carrying`]): the repair
    /// departs only where that token follows a string whose closing quote it reads on past.
    #[inline]
    fn token_failure(&self, expect: Expect, quote: Option<usize>) -> Carries {
        match (self.mode, expect, quote) {
            (Mode::Strict, Expect::Colon | Expect::CommaOrClose, Some(q)) => {
                // Where strict closed the string, the repair closes it too under the colon
                // rules that close it there.
                match (after_quote(self.text, q), expect) {
                    (AfterQuote::Closes, _) | (AfterQuote::Colon, Expect::Colon) => Carries::Both,
                    (AfterQuote::Colon, _) => Carries::Wide,
                    (AfterQuote::Continues, _) => Carries::Neither,
                }
            }
            (Mode::Strict, ..) => Carries::Both,
            _ => Carries::Neither,
        }
    }

    /// [`Validator::string_carrying`], for the loop: a short string that ends at its first
    /// quote (a key, a short value) is read here, byte by byte, without a lookup. It is too
    /// short to have been memoized, and it ends where the full reading would end it.
    #[inline(always)]
    fn string_in_loop(&mut self, open: usize, key: bool) -> Carrying {
        let bytes = self.bytes;
        let mut j = open + 1;
        let limit = bytes.len().min(open + SHORT_STRING);
        while j < limit {
            match bytes[j] {
                b'"' => {
                    if self.mode == Mode::Strict
                        || after_quote_ascii(bytes, j).is_some_and(|a| a.closes(self.mode == Mode::Wide || key))
                    {
                        self.work.bytes += (j - open) as u64;
                        return Ok(j + 1);
                    }
                    break;
                }
                b'\\' => break,
                b if b < 0x20 => break,
                _ => j += 1,
            }
        }
        self.string_carrying(open, key)
    }

    /// The string at `open`, a failure with what it carries: in the strict mode, whether the
    /// repair reads on past where strict stopped (a backslash, or a raw LF, CR or tab).
    fn string_carrying(&mut self, open: usize, key: bool) -> Carrying {
        self.string_at(open, key).map_err(|f| {
            let carries = match (self.mode, self.bytes.get(f)) {
                (Mode::Strict, Some(b'\\' | b'\n' | b'\r' | b'\t')) => Carries::Neither,
                (Mode::Strict, _) => Carries::Both,
                _ => Carries::Neither,
            };
            (f, carries)
        })
    }

    /// A container that closed at `end`, memoized when far enough from its start.
    fn remember(&mut self, start: usize, end: usize) {
        if end - start >= self.memo_min {
            self.pending.push(Pending { table: Which::Containers, pos: start, end });
        }
    }

    /// The container a caller asked about closed at `end`. The walk asks about candidates in
    /// increasing order, so a repaired validator is never asked again about a container it
    /// was asked about (only about containers nested in it, which start later), and the
    /// whole-reply reading asks once. The strict validator's answers are asked for again: the
    /// whole text's by the walk's first candidate, and all of them by the repaired readings.
    fn remember_asked(&mut self, start: usize, end: usize) {
        if self.mode == Mode::Strict && end - start >= self.memo_min {
            self.containers.set(start, Ok(end));
        }
    }

    /// Every open container fails at `at`, carrying `carries`; the stack is emptied. (The
    /// one the caller asked about is memoized as [`Validator::remember_asked`] says.)
    fn fail_all(&mut self, stack: &mut Vec<Frame>, at: usize, carries: Carries) -> (usize, Carries) {
        let asked = usize::from(self.mode != Mode::Strict);
        // Frames open further in are nearer the failure: those far enough to keep come first.
        let frames = stack.get(asked..).unwrap_or_default();
        let kept = frames.partition_point(|f| at - f.start() >= self.memo_min);
        self.containers.fail_together(&frames[..kept], at, carries);
        stack.clear();
        (at, carries)
    }

    /// `true`, `false`, `null` or a number at `at`.
    fn literal_at(&mut self, at: usize) -> Outcome {
        let outcome = scalar_end(self.bytes, at);
        let (Ok(reach) | Err(reach)) = outcome;
        self.work.bytes += (reach - at) as u64;
        outcome
    }

    /// Where the outcomes of strings like this one are kept.
    fn strings(&mut self, key: bool) -> &mut Strings {
        if key && self.mode == Mode::Narrow { &mut self.keys } else { &mut self.strings }
    }

    /// Whether the string in key position whose quote is at `open`, the first token after
    /// a `{`, is already known not to read in this mode (a lookup: `false` says nothing).
    #[inline]
    pub fn key_known_to_fail(&self, open: usize) -> bool {
        let strings = if self.mode == Mode::Narrow { &self.keys } else { &self.strings };
        // The quote follows `{` or whitespace, not a backslash: the run holds it if it lies
        // inside.
        strings.run.contains(open) || matches!(strings.table.get(open), Some(Err(_)))
    }

    /// Quotes at which a string in key position is known not to read in this mode: a key
    /// whose quote lies in this range (after a `{` or whitespace, so not escaped by a
    /// backslash) fails. (The failing run of key strings kept whole; often empty.)
    #[inline]
    pub fn failing_keys(&self) -> std::ops::Range<usize> {
        let strings = if self.mode == Mode::Narrow { &self.keys } else { &self.strings };
        strings.run.open..strings.run.limit
    }

    /// The string whose opening quote is at `open`, in this mode.
    fn string_at(&mut self, open: usize, key: bool) -> Outcome {
        let bytes = self.bytes;
        if let Some(outcome) = self.strings(key).get(bytes, open) {
            self.work.hits += 1;
            return outcome;
        }
        // Most strings close at the first byte that means anything in them: read those here.
        let i = next_string_special(self.bytes, open + 1);
        if self.bytes.get(i) != Some(&b'"') {
            return self.string_on(open, key, i, usize::MAX);
        }
        if self.mode == Mode::Strict || self.quote_closes(i, self.mode == Mode::Wide || key) {
            self.work.bytes += (i - open) as u64;
            if i + 1 - open >= self.memo_min {
                let table = self.string_table(key);
                self.pending.push(Pending { table, pos: open, end: i + 1 });
            }
            return Ok(i + 1);
        }
        // A quote the repair reads past: on from there (where a later string's run may open).
        self.string_on(open, key, i, usize::MAX)
    }

    /// [`Validator::string_at`] from `i`, at or past the string's first special byte, where
    /// `first_inner` is the first quote the repair escaped inside it (`usize::MAX` if none
    /// yet). Every quote the repair escapes inside it shares its outcome: a string opened at
    /// one continues from the same state. (A quote escaped by a backslash is never where a
    /// value starts, so only the repair's count.)
    #[inline(never)]
    fn string_on(&mut self, open: usize, key: bool, mut i: usize, mut first_inner: usize) -> Outcome {
        let bytes = self.bytes;
        let colon_closes = self.mode == Mode::Wide || key;
        // A later string's failing run, where this scan may pass its opening quote: from
        // there on this scan is that one, and fails where it does.
        let run = self.strings(key).run;
        let join = if run.open > open && run.limit > run.open { run.open } else { usize::MAX };
        let outcome = 'scan: loop {
            i = next_string_special(bytes, i);
            let Some(&c) = bytes.get(i) else { break Err(i) };
            match c {
                b'"' if self.mode == Mode::Strict => break Ok(i + 1),
                b'"' => loop {
                    // Quotes close together (`"{"{"{`), each followed at once by a plain byte
                    // that leaves it escaped, are passed two bytes a step, without a search.
                    while let Some(&b) = bytes.get(i + 1)
                        && escaped_before_plain(b)
                    {
                        if i == join {
                            break 'scan Err(run.limit);
                        }
                        first_inner = first_inner.min(i);
                        i += 2;
                        if bytes.get(i) != Some(&b'"') {
                            continue 'scan;
                        }
                    }
                    let closes = match bytes.get(i + 1) {
                        None | Some(b',' | b'}' | b']') => true,
                        Some(b':') => colon_closes,
                        Some(b'"' | b'\\') => false,
                        Some(_) => self.quote_closes(i, colon_closes),
                    };
                    if closes {
                        break 'scan Ok(i + 1);
                    }
                    if i == join {
                        break 'scan Err(run.limit);
                    }
                    first_inner = first_inner.min(i);
                    i += 1;
                    if bytes.get(i) != Some(&b'"') {
                        continue 'scan;
                    }
                },
                b'\\' => {
                    // A run of one-character escapes (a page's `\"` and `\n`), read without a
                    // search per escape; they mean the same in every mode.
                    let from = i;
                    while bytes.get(i) == Some(&b'\\') && bytes.get(i + 1).is_some_and(|&e| simple_escape(e).is_some())
                    {
                        i += 2;
                    }
                    if i > from {
                        continue;
                    }
                    let escape = match self.mode {
                        Mode::Strict => strict_escape_len(bytes, i),
                        // The repair keeps an escape JSON allows and doubles any other
                        // backslash; either way the parser reads on.
                        Mode::Wide | Mode::Narrow => Some(if is_escape(bytes, i) { 2 } else { 1 }),
                    };
                    let Some(len) = escape else { break Err(i) };
                    i += len;
                }
                b'\n' | b'\r' | b'\t' if self.mode != Mode::Strict => i += 1,
                _ => break Err(i),
            }
        };
        self.work.bytes += (i - open) as u64;
        let (Ok(reach) | Err(reach)) = outcome;
        if reach - open >= self.memo_min {
            match outcome {
                Ok(end) => {
                    // Successes wait on the question's answer ([`Validator::settle`]), at the
                    // opening quote and every quote inside not escaped by a backslash.
                    let table = self.string_table(key);
                    self.pending.push(Pending { table, pos: open, end });
                    let last = end.saturating_sub(MEMO_MIN);
                    let mut q = first_inner;
                    while q <= last {
                        if bytes.get(q.wrapping_sub(1)) != Some(&b'\\') {
                            self.pending.push(Pending { table, pos: q, end });
                        }
                        let Some(k) = bytes.get(q + 1..=last).and_then(|rest| memchr::memchr(b'"', rest)) else {
                            break;
                        };
                        q += 1 + k;
                    }
                }
                Err(at) => {
                    let strings = self.strings(key);
                    strings.fail_run(bytes, open, at);
                }
            }
        }
        outcome
    }

    /// The repair's rule for a quote inside a string ([`quote_closes`]).
    fn quote_closes(&mut self, i: usize, colon_closes: bool) -> bool {
        self.work.bytes += 1;
        quote_closes(self.text, i, colon_closes)
    }
}

/// The length of the JSON escape at `i` (a backslash), or `None` when JSON refuses it.
fn strict_escape_len(bytes: &[u8], i: usize) -> Option<usize> {
    is_escape(bytes, i).then(|| if bytes.get(i + 1) == Some(&b'u') { 6 } else { 2 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::js;
    use crate::exact::memo::table::GROUP_MIN;
    use crate::exact::repair::{ColonRule, repaired_span};
    use crate::exact::strict::strict_span;

    /// The validator's verdict must be the seed's: the span parses, and ends where it says.
    fn agree(text: &str) {
        let mut strict = Validator::new(text, Mode::Strict);
        let mut wide = Validator::new(text, Mode::Wide);
        let mut narrow = Validator::new(text, Mode::Narrow);
        for (j, _) in text.match_indices('{') {
            let seed_strict = strict_span(text, j).filter(|&e| js::is_json(&text[j..e]));
            assert_eq!(strict.object_at(j).ok(), seed_strict, "strict at {j} in {text:?}");
            let seed_wide =
                repaired_span(text, j, ColonRule::Wide, None).filter(|r| js::is_json(&r.text)).map(|r| r.end);
            assert_eq!(wide.object_at(j).ok(), seed_wide, "wide at {j} in {text:?}");
            let seed_narrow =
                repaired_span(text, j, ColonRule::Narrow, None).filter(|r| js::is_json(&r.text)).map(|r| r.end);
            assert_eq!(narrow.object_at(j).ok(), seed_narrow, "narrow at {j} in {text:?}");
            // The two readings of a flat object made together are the seed's two, in order.
            let key = j + 1 + text[j + 1..].bytes().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')).count();
            if text.as_bytes().get(key) == Some(&b'"')
                && let Some(read) = flat::strict_then_wide(text.as_bytes(), j, key)
            {
                let seed = seed_strict.map(|e| (e, false)).or(seed_wide.map(|e| (e, true)));
                assert_eq!(read, seed, "strict then wide at {j} in {text:?}");
            }
        }
        // The wide reading, where it decides the narrow one, decides it as made: asked in
        // order of the text (so that a failure may be one the memo held) and from scratch.
        let mut wide = Validator::new(text, Mode::Wide);
        for (j, _) in text.match_indices('{') {
            let narrow = Validator::once(text, Mode::Narrow).object_at(j);
            for read in [wide.object_at(j), Validator::once(text, Mode::Wide).object_at(j)] {
                if let Some(decided) = super::super::narrow_as_wide(text, read) {
                    assert_eq!(decided, narrow, "narrow as wide at {j} in {text:?}");
                }
            }
        }
        // The narrow reading resumed where the wide one stopped at a value's quote that `:`
        // follows reads as made from the start: the wide reading asked in order of the text
        // (so that a stop may lie past what the memo held), the narrow one shared or fresh.
        let mut stopping = Validator::new(text, Mode::Wide);
        stopping.keep_colon_stops();
        let mut resuming = Validator::new(text, Mode::Narrow);
        for (j, _) in text.match_indices('{') {
            let _ = stopping.object_at(j);
            let Some(stop) = stopping.colon_stop(j) else { continue };
            let narrow = Validator::once(text, Mode::Narrow).object_at(j);
            assert_eq!(resuming.object_at_resuming(j, stop, None), narrow, "narrow resumed at {j} in {text:?}");
            let fresh = Validator::once(text, Mode::Narrow).object_at_resuming(j, stop, Some(&strict));
            assert_eq!(fresh, narrow, "narrow resumed afresh at {j} in {text:?}");
        }
        // A strict failure that carries to a repaired reading is that reading's failure.
        let mut carrying = Validator::new(text, Mode::Strict);
        for (j, _) in text.match_indices('{') {
            let Err((at, carries)) = carrying.object_at_carrying(j) else { continue };
            for mode in [Mode::Wide, Mode::Narrow] {
                if carries.to(mode) {
                    assert_eq!(Validator::new(text, mode).object_at(j), Err(at), "{mode:?} at {j} in {text:?}");
                }
            }
        }
        // Again, taking what the strict reading learned (all of it, in every order).
        let mut knowing = Validator::new(text, Mode::Wide);
        for (j, _) in text.match_indices('{').collect::<Vec<_>>().into_iter().rev() {
            let seed_wide =
                repaired_span(text, j, ColonRule::Wide, None).filter(|r| js::is_json(&r.text)).map(|r| r.end);
            assert_eq!(knowing.object_at_knowing(j, Some(&strict)).ok(), seed_wide, "wide knowing at {j} in {text:?}");
        }
    }

    /// Each mode's validator, asked about the candidates of `text` in `order` (indices into its
    /// braces), answers as the seed does whatever it was asked before: what one question
    /// learned (a failing string kept as a run, flushed into the table by the next, joined by
    /// an earlier one) answers a later one exactly.
    fn agree_in_order(text: &str, order: &[usize]) {
        let braces: Vec<usize> = text.match_indices('{').map(|(j, _)| j).collect();
        for (mode, rule) in
            [(Mode::Strict, None), (Mode::Wide, Some(ColonRule::Wide)), (Mode::Narrow, Some(ColonRule::Narrow))]
        {
            let mut validator = Validator::new(text, mode);
            for &k in order {
                let Some(&j) = braces.get(k) else { continue };
                let seed = match rule {
                    None => strict_span(text, j).filter(|&e| js::is_json(&text[j..e])),
                    Some(rule) => repaired_span(text, j, rule, None).filter(|r| js::is_json(&r.text)).map(|r| r.end),
                };
                let outcome = validator.object_at(j);
                assert_eq!(outcome.ok(), seed, "{mode:?} at {j} in {text:?} asked in {order:?}");
                // Where it fails too: as a reading from scratch, which stores nothing.
                let fresh = Validator::once(text, mode).object_at(j);
                assert_eq!(outcome, fresh, "{mode:?} at {j} in {text:?} asked in {order:?}");
            }
        }
    }

    /// Forward, backward, and shuffled by `seed`.
    fn agree_in_orders(text: &str, seed: u64) {
        let n = text.matches('{').count();
        let forward: Vec<usize> = (0..n).collect();
        agree_in_order(text, &forward);
        agree_in_order(text, &forward.iter().rev().copied().collect::<Vec<_>>());
        let mut shuffled = forward;
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (state >> 33) as usize % (i + 1));
        }
        agree_in_order(text, &shuffled);
    }

    #[test]
    fn failing_runs_agree_with_span_then_parse() {
        let run = "\"{".repeat(24);
        for (k, t) in [
            // One run to the end of the text; candidates inside it, before it, after it.
            run.clone(),
            format!("{{\"a\": {run}"),
            format!("{run}{{}}{run}{{ }}{run}"),
            // Runs ended by a control character: each new one flushes the last into the table.
            format!("{run}\u{1}{run}\u{1}{run}"),
            format!("{run}\u{1}{{\"a\": 1}} {{\"b\": {run}\u{1} {{\"c\":{run}"),
            // Quotes escaped by a backslash inside a run: never where a string opens.
            format!("{}\u{1}{run}", "\"{\\\"{\\\\\"{".repeat(12)),
            // A key's colon closes only keys under the narrow rule: runs of values, of keys.
            format!("{}\u{1}{}", "{\"a\":\"{\":".repeat(12), "{\"a\":\"".repeat(12)),
            format!("{{\"a\": \"{}\": 1 {run}\u{1}", "\"{".repeat(20)),
            // Long strings that close: successes, kept only where a question fails.
            format!("{{\"a\": \"{}\"}} {{\"b\": \"{}\" x", "\"{".repeat(20), "{\"".repeat(20)),
        ]
        .iter()
        .enumerate()
        {
            agree_in_orders(t, k as u64);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Texts long enough for strings to be kept (runs, successes, flushes), asked about in
        /// every order.
        #[test]
        fn long_strings_agree_with_span_then_parse_in_any_order(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{\"{", "\"{", "{", "}", "\"", ":", ",", "\\\"", " ", "\u{1}",
                    "{\"a\":\"", "a", "\\", "\n", "[", "]",
                ]),
                0..24,
            ),
            seed in proptest::prelude::any::<u64>(),
        ) {
            agree_in_orders(&parts.concat(), seed);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// Short objects of every shape (what the flat reading takes, and what it leaves to
        /// the validator) read as the seed reads them, in every mode.
        #[test]
        fn short_objects_agree_with_span_then_parse(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "{", "}", "\"", ":", ",", "a", "1", " ", "\\", "\n", "[", "]", "true", "\u{a0}", "-", ".5",
                    "e", "\\u00e9", "\\\"", "{\"a\":", "\"b\"", "\u{1}",
                ]),
                0..24,
            ),
        ) {
            agree(&parts.concat());
        }
    }

    #[test]
    fn verdicts_agree_with_span_then_parse() {
        for t in [
            r#"{"a": {"b": [1, {"c": "}"}]}, "d": "\"{"} tail {"x": 1}"#,
            r#"{"html": "<q>"hi"</q>", "log": "a: b"}"#,
            "{\"a\": \"x\ny\t\\'\"}",
            r#"{"a":{"a":{"a":{"a":"#,
            r#""{"{"{"{"{"{"#,
            r#"{"a":"{"a":"{"a":""#,
            "{\"a\": \"\u{1}\"} {\"b\": [}] {}",
            r#"{"a":1}{"a":1}{ {"a":[1,2,{"b":null}],"c":-0.5e+3} {"x": 01} {"y": 1.}"#,
            r#"{"a" : "b" , "c":true,"d":false,"e":nul}"#,
            r#"{"a":"\u00e9\ud800\u12G4"}"#,
            r#"{"notes": "read as { "faithful": true, "problems": [] }; no", "a": [{"b": "x": "y"}]}"#,
            r#"{"a": "x", "b" : "k": 1, "c": ["d": "e"]}"#,
            "{\"a\": \"x\"\u{3000}, \"b\"\u{3000}: 1} {\"a\": \"x\"\u{b}} {\"a\"\u{c}: 1}",
            // A value's quote that `:` follows past whitespace JSON does not skip: the wide
            // reading fails at that whitespace, where the narrow one reads on.
            "{\"a\": \"x\"\u{a0}: y\"} {\"a\": \"x\" \u{2028}: y\", \"b\": 1} {\"a\": [\"x\"\n: y\"]}",
            r#"{"a": {"b": "x" y"}, "c": 1} {"a": "x": 1} {"a" "b"} {"a": ["x" y"]}"#,
            "{\"a\": \"x\\'y\"} {\"a\": \"x\ny\"} {\"a\": \"x\u{1}y\"} {\"a\": \"x\\",
            r#"{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":"x" y", "b": 1}}}}}}}}}} {"a":"#,
            // Small flat objects the repair reads on past a key's or a value's quote, and on
            // into the members after it.
            r#"{"a"x":"b"} {"a"x":1, "c":"d"} {"a"x"y":"b","c":1} {"a":"x"y", "b":"c"} {"a":"x"y":1}"#,
            // Verdicts whose page quotes a verdict: the wide reading stops at the quoted key's
            // `:`, in an object, in an array, nested, twice, and where the rest fails too.
            r#"{"faithful": false, "notes": "the draft said "faithful": true, then no", "problems": ["a b c d e f"]}"#,
            r#"{"a": [1, {"b": "a longer value, then "y": z and more"}], "c": "d"} {"e": ["x y z w v u t s": 1"], "f": 2}"#,
            r#"{"a": "one quoted "k": 1, then "j": 2", "b": "y": 2} {"a": "quoted "k": 1 and then the end"#,
            r#"{"a": "a value long enough to keep "k" : 1", "b": [{"c": "x"}, "y"]: 3} {"a": "x x x x x x x x x x "k": {"#,
        ] {
            agree(t);
        }
    }

    /// Where the wide reading of a verdict stopped at the `:` after its page's quoted key, the
    /// narrow reading goes on from there: it reads what it reads from the start, without
    /// reading the page before the quote again.
    #[test]
    fn the_narrow_reading_goes_on_from_where_the_wide_one_stopped() {
        let page = "a page of text, ".repeat(200);
        let text = format!(r#"{{"notes": "{page} it said "faithful": true, {page}", "faithful": false}}"#);
        let mut wide = Validator::new(&text, Mode::Wide);
        wide.keep_colon_stops();
        assert!(wide.object_at(0).is_err());
        let stop = wide.colon_stop(0).expect("the wide reading stops at the quoted key's colon");
        let mut from_start = Validator::once(&text, Mode::Narrow);
        let mut resumed = Validator::once(&text, Mode::Narrow);
        assert_eq!(from_start.object_at(0), Ok(text.len()));
        assert_eq!(resumed.object_at_resuming(0, stop, None), Ok(text.len()));
        // The page before the quote (half the text) is read once, by the wide reading.
        assert!(
            resumed.work.bytes < from_start.work.bytes - page.len() as u64,
            "{:?} {:?}",
            resumed.work,
            from_start.work
        );
        // A wide validator not asked to keep stops keeps none.
        let mut plain = Validator::new(&text, Mode::Wide);
        assert!(plain.object_at(0).is_err());
        assert!(plain.colon_stop(0).is_none());
    }

    #[test]
    fn containers_failing_together_agree_with_span_then_parse() {
        let deep = "{\"a\":".repeat(2 * GROUP_MIN);
        let closers = "}".repeat(2 * GROUP_MIN);
        for t in [
            format!("{deep}x"),
            format!("{deep}1{closers}"),
            format!("{deep}\"s\\q\" {deep}x"),
            format!("{deep}\"s\\q\"{closers} {deep}x"),
            format!("{deep}[{deep}\"x\ny\"] {deep}"),
            format!("\"{{\"{deep}\"{{\" {deep}}}{deep}\"a\": 1"),
            format!("{deep}\"a\" \"b\" {closers} {{\"a\":[{deep}:"),
        ] {
            agree(&t);
        }
    }

    #[test]
    fn shared_strings_do_not_rescan() {
        let text = "\"{".repeat(4096);
        let mut wide = Validator::new(&text, Mode::Wide);
        for (j, _) in text.match_indices('{') {
            let _ = wide.object_at(j);
        }
        assert!(wide.work.bytes < 8 * text.len() as u64, "{:?} for {} bytes", wide.work, text.len());
    }
}
