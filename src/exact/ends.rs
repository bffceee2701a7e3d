//! Where the span of every `{` ends, strict or repaired, found for all of them in one pass.
//!
//! The seed finds a candidate's span by scanning from its `{` to the matching `}`, once per
//! candidate. The walk itself never needs a span (see [`super::memo`]), but the
//! resume-after-fail what-if goes on after the span of each candidate it cannot read, and on
//! a reply nested a million deep every candidate fails and every scan runs to the end.
//!
//! A span scan is a small state machine (outside a string, inside one, just past a
//! backslash) and a stack of the braces it has open. Two scans that reach the same byte in
//! the same state go on identically from there, so at any byte there are at most three
//! distinct scans, and one pass can carry them all: a `{` is opened on the scan that is
//! outside a string there, a new scan starting where none is. When two scans meet in one
//! state they become one, and from then on each `}` closes the innermost open brace of both:
//! their stacks are zipped from the top, a level holding the braces that close together.
//! Every level is made by one `{` and zipped away at most once, so the pass is linear.

use super::memo::{Table, Work};
use super::repair::{Containers, is_escape, quote_closes};

/// Which span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanRule {
    /// The strict span: a `"` opens or closes a string, full stop.
    Strict,
    /// The repaired span under the wide colon rule: a `"` closes its string only where the
    /// object continues after it.
    Wide,
    /// The repaired span under the narrow colon rule: a `:` after a `"` closes only a key.
    /// Whether a string is a key depends on the containers a scan has open, so scans from
    /// two braces do not become one where they meet: these spans are only ever scanned one
    /// by one (each keeping the spans it can vouch for, `SpanEnds::narrow`).
    Narrow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Outside,
    InString,
    /// Inside a string, just past a backslash that escapes the next byte.
    Escaped,
}

/// The braces one scan has open at one depth: one, or several once scans have merged.
enum Level {
    One(usize),
    Many(Vec<usize>),
}

impl Level {
    fn join(self, other: Level) -> Level {
        let (mut many, other) = match (self, other) {
            (Level::Many(a), b) | (b, Level::Many(a)) => (a, b),
            (Level::One(a), Level::One(b)) => (vec![a], Level::One(b)),
        };
        match other {
            Level::One(p) => many.push(p),
            Level::Many(more) => many.extend(more),
        }
        Level::Many(many)
    }

    fn each(self, mut f: impl FnMut(usize)) {
        match self {
            Level::One(p) => f(p),
            Level::Many(ps) => ps.into_iter().for_each(f),
        }
    }
}

struct Track {
    state: State,
    /// Open braces, innermost last.
    open: Vec<Level>,
}

/// The span ends of one reply's braces, under one scan: those the scans asked for one by one
/// passed, and all of them once those scans have read a reply's length again.
pub struct SpanEnds<'a> {
    text: &'a str,
    scan: SpanRule,
    /// The ends known: those the scans one by one passed, and every brace's once
    /// `complete`.
    ends: Table,
    complete: bool,
    /// The bytes from the first to the last that a scan one by one has read (none before
    /// the first), and how many bytes those scans read again within them.
    scanned: Option<(usize, usize)>,
    again: usize,
    /// The braces a scan on its own has open, innermost last (kept for the next scan's use).
    open: Vec<usize>,
    pub work: Work,
}

impl<'a> SpanEnds<'a> {
    pub fn new(text: &'a str, scan: SpanRule) -> SpanEnds<'a> {
        SpanEnds {
            text,
            scan,
            ends: Table::default(),
            complete: false,
            scanned: None,
            again: 0,
            open: Vec::new(),
            work: Work::default(),
        }
    }

    /// The end (exclusive) of the span opening at the `{` at `start`, or `None` when its
    /// braces never balance: what [`super::strict::strict_span`] or
    /// [`super::repair::repaired_span`] would say.
    ///
    /// A reply asks for few spans (a brace of prose, a scratch template, an object left open),
    /// or for spans one after another (the resume-after-fail what-if goes on past each): they
    /// are scanned one by one, until those scans have read again as many bytes as the reply
    /// holds, and then all found at once, so that a reply of a million braces costs three
    /// passes at most. One by one is the cheaper where few are asked, or each past the last:
    /// the pass that finds them all carries up to three scans and a table of ends. A scan on
    /// its own also finds the span of every brace it opens outside a string, which is asked
    /// next where that candidate failed too (the walks descend into a failed candidate):
    /// those are kept, not scanned again.
    pub fn end(&mut self, start: usize) -> Option<usize> {
        self.end_knowing(start, &|_| None)
    }

    /// [`SpanEnds::end`], where `known` says where an object a reading read ends (`None`
    /// where none did): a scan that meets such an object outside a string steps over it.
    ///
    /// That is the same span. A reading that reads an object is valid JSON over it, strictly
    /// or under the repair's string rule, so a scan from its `{` under the same rule finds the
    /// same strings and closes it at the same `}`; met outside a string, the scan goes on from
    /// there as that scan does, and leaves it outside a string with the same braces open as
    /// before it. So `known` must tell, for the strict scan, objects read strictly; for the
    /// wide one, objects read strictly or by the wide rule (which reads the same objects to
    /// the same end where the strict reading reads them).
    pub fn end_knowing(&mut self, start: usize, known: &dyn Fn(usize) -> Option<usize>) -> Option<usize> {
        if let Some(known) = self.ends.get(start) {
            return known.ok();
        }
        if self.scan == SpanRule::Narrow {
            let (end, scanned) = self.narrow(start);
            self.work.bytes += scanned as u64;
            return end;
        }
        if !self.complete {
            // Only bytes read again count: those between the first and the last byte read.
            let (first, last) = self.scanned.unwrap_or((start, start));
            let budget = self.text.len().saturating_sub(self.again);
            let within = first.max(start)..last.max(start);
            let limit = if within.len() <= budget { usize::MAX } else { within.start + budget };
            let (found, scanned) = self.one_within(start, limit, known);
            let end = start + scanned;
            self.again += end.min(within.end).saturating_sub(within.start);
            self.scanned = Some((first.min(start), last.max(end)));
            self.work.bytes += scanned as u64;
            if let Some(end) = found {
                return end;
            }
            self.ends = self.all();
            self.complete = true;
            if let Some(known) = self.ends.get(start) {
                return known.ok();
            }
        }
        // Not a `{`, or a span too long for the table to keep: scanned on its own.
        self.one_within(start, usize::MAX, known).0.flatten()
    }

    /// The span at `start` scanned on its own, where that decides it before byte `limit`
    /// (`None` where it would read on), and the bytes scanned.
    ///
    /// A scan from a brace it opens outside a string goes on from there as this one does, so
    /// that brace's span ends where this scan closes it, and never balances where this scan
    /// reaches the reply's end with it open: both are kept.
    fn one_within(
        &mut self,
        start: usize,
        limit: usize,
        known: &dyn Fn(usize) -> Option<usize>,
    ) -> (Option<Option<usize>>, usize) {
        let bytes = self.text.as_bytes();
        let len = bytes.len();
        let stop = limit.min(len);
        let strict = self.scan == SpanRule::Strict;
        let mut open = std::mem::take(&mut self.open);
        open.clear();
        let mut in_string = false;
        let mut i = start;
        // An object read, met past the scan's start, is stepped over where its end lies
        // within the scan's limit ([`SpanEnds::end_knowing`]); each is counted.
        let stepped = std::cell::Cell::new(0);
        let read = |p: usize| {
            let end = known(p).filter(|&e| p > start && e <= stop)?;
            stepped.set(stepped.get() + 1);
            Some(end)
        };
        // Only quotes, braces and backslashes act, so the bytes between them are skipped in
        // bulk: outside a string quotes and braces, inside one quotes and backslashes. The
        // strict rule reads a block of them at once where it can (`strict_blocks`).
        let found = 'scan: {
            if strict
                && let Some(end) =
                    strict_blocks(bytes, &mut open, &mut self.ends, (&mut i, &mut in_string), stop, &read)
            {
                break 'scan Some(end);
            }
            // What is left: fewer bytes than a block before `stop`, or the wide rule's scan.
            let mut events = Events::default();
            loop {
                let Some(at) = events.next(bytes, i, stop, in_string) else { break None };
                i = at;
                match (in_string, bytes[i]) {
                    (false, b'"') => in_string = true,
                    (false, b'{') if let Some(end) = read(i) => {
                        i = end;
                        continue;
                    }
                    (false, b'{') => open.push(i),
                    (false, _) => {
                        if let Some(end) = close(&mut open, &mut self.ends, i) {
                            break Some(end);
                        }
                    }
                    // An escape takes the byte after it, whatever it is.
                    (true, b'\\') => {
                        if strict || is_escape(bytes, i) {
                            i += 1;
                        }
                    }
                    (true, _) => {
                        if strict || quote_closes(self.text, i, true) {
                            in_string = false;
                        }
                    }
                }
                i += 1;
            }
        };
        let result = match found {
            Some(end) => (Some(Some(end)), end - start),
            None if stop == len => {
                for &p in &open {
                    self.ends.set(p, Err(p));
                }
                (Some(None), len.saturating_sub(start))
            }
            None => (None, stop.saturating_sub(start)),
        };
        self.open = open;
        self.work.hits += stepped.get();
        result
    }

    /// The narrow span at `start` scanned on its own, and the bytes scanned, keeping the
    /// spans of the braces it opens outside a string as [`SpanEnds::one_within`] does, where
    /// they are vouched for.
    ///
    /// A scan from a brace it opens reads each quote as this one does as long as the
    /// containers it looks at are its own: this scan's stack never drops below that brace's
    /// entry while the brace is open (only a `]` or `}` that closes what it did not open
    /// makes it). A brace whose entry this scan uncovers is not kept.
    fn narrow(&mut self, start: usize) -> (Option<usize>, usize) {
        let bytes = self.text.as_bytes();
        // The braces open (by the depth of braces, which alone ends a span) with their entry's
        // height among the containers; of those, the ones still vouched for, whose heights
        // rise from bottom to top.
        let mut containers = Containers::default();
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut vouched: Vec<usize> = Vec::new();
        let (mut in_string, mut key) = (false, false);
        let mut i = start;
        while let Some(&b) = bytes.get(i) {
            if in_string {
                match b {
                    b'\\' if is_escape(bytes, i) => i += 1,
                    b'"' if quote_closes(self.text, i, key) => in_string = false,
                    _ => {}
                }
                i += 1;
                continue;
            }
            containers.step(b);
            match b {
                b'"' => {
                    in_string = true;
                    key = containers.key_next();
                }
                b'{' => {
                    vouched.push(open.len());
                    open.push((i, containers.height()));
                }
                b'}' => {
                    let Some((p, _)) = open.pop() else { return (Some(i + 1), i + 1 - start) };
                    if vouched.last() == Some(&open.len()) {
                        vouched.pop();
                        self.ends.set(p, Ok(i + 1));
                    }
                    if open.is_empty() {
                        return (Some(i + 1), i + 1 - start);
                    }
                }
                _ => {}
            }
            // A brace whose entry a `]` or `}` took is no longer vouched for.
            while vouched.last().is_some_and(|&k| open[k].1 > containers.height()) {
                vouched.pop();
            }
            i += 1;
        }
        for &k in &vouched {
            self.ends.set(open[k].0, Err(open[k].0));
        }
        (None, bytes.len().saturating_sub(start))
    }

    fn all(&mut self) -> Table {
        let bytes = self.text.as_bytes();
        let mut ends = Table::default();
        let mut tracks: Vec<Track> = Vec::new();
        let mut i = 0;
        // The next `\` at or after `i` (`bytes.len()` where there is none), found again only
        // once `i` has passed it, so that looking for it costs one pass in all.
        let mut backslash: Option<usize> = None;
        while i < bytes.len() {
            // The bytes that change no scan are skipped in bulk.
            let next = match tracks.as_slice() {
                [] => memchr::memchr(b'{', &bytes[i..]),
                [t] if t.state == State::Outside => memchr::memchr3(b'"', b'{', b'}', &bytes[i..]),
                [t] if t.state == State::InString => memchr::memchr3(b'"', b'\\', b'{', &bytes[i..]),
                // A scan just past a backslash takes the next byte, whatever it is.
                ts if ts.iter().any(|t| t.state == State::Escaped) => Some(0),
                // Two or three scans, each outside a string or inside one: a byte that is no
                // quote, brace or backslash changes none of them.
                _ => {
                    if backslash.is_none_or(|b| b < i) {
                        backslash = Some(memchr::memchr(b'\\', &bytes[i..]).map_or(bytes.len(), |k| i + k));
                    }
                    let other = memchr::memchr3(b'"', b'{', b'}', &bytes[i..]).map_or(bytes.len(), |k| i + k);
                    let at = backslash.unwrap_or(bytes.len()).min(other);
                    (at < bytes.len()).then(|| at - i)
                }
            };
            let Some(skip) = next else { break };
            i += skip;
            let b = bytes[i];
            if b == b'{' && !tracks.iter().any(|t| t.state == State::Outside) {
                tracks.push(Track { state: State::Outside, open: Vec::new() });
            }
            for t in &mut tracks {
                self.step(t, i, b, &mut ends);
            }
            join_alike(&mut tracks);
            i += 1;
        }
        for t in tracks {
            for level in t.open {
                level.each(|p| ends.set(p, Err(p)));
            }
        }
        self.work.bytes += bytes.len() as u64;
        ends
    }

    fn step(&self, t: &mut Track, i: usize, b: u8, ends: &mut Table) {
        t.state = match (t.state, b) {
            (State::Outside, b'"') => State::InString,
            (State::Outside, b'{') => {
                t.open.push(Level::One(i));
                State::Outside
            }
            (State::Outside, b'}') => {
                if let Some(level) = t.open.pop() {
                    level.each(|p| ends.set(p, Ok(i + 1)));
                }
                State::Outside
            }
            (State::Outside, _) => State::Outside,
            (State::Escaped, _) => State::InString,
            (State::InString, b'\\') if self.scan == SpanRule::Strict || is_escape(self.text.as_bytes(), i) => {
                State::Escaped
            }
            (State::InString, b'"') if self.scan == SpanRule::Strict || quote_closes(self.text, i, true) => {
                State::Outside
            }
            (State::InString, _) => State::InString,
        };
    }
}

/// Bytes the strict scan reads at once.
const BLOCK: usize = 64;

/// The bytes of a span scan's block that act: a bit for each quote, backslash, `{` and `}`,
/// found by one vector compare each (`wide`'s, without `unsafe`).
struct Marks {
    quotes: u64,
    backslashes: u64,
    opens: u64,
    closes: u64,
}

impl Marks {
    /// Those of the block at `i`, where a whole block is left before `stop`.
    #[inline(always)]
    fn at(bytes: &[u8], i: usize, stop: usize) -> Option<Marks> {
        use wide::u8x64;
        if i + BLOCK > stop {
            return None;
        }
        let v = u8x64::new(bytes.get(i..i + BLOCK).and_then(|b| <[u8; BLOCK]>::try_from(b).ok())?);
        let mask = |b: u8| v.simd_eq(u8x64::splat(b)).to_bitmask();
        Some(Marks { quotes: mask(b'"'), backslashes: mask(b'\\'), opens: mask(b'{'), closes: mask(b'}') })
    }
}

/// The strict scan from `at.0` (inside a string where `at.1`), a block of [`BLOCK`] bytes at a
/// time while a whole block is left before `stop`: the span's end where a `}` closes it (or
/// closes nothing, where the scan did not start at a `{`), else `None` with `at` where it
/// stopped. The ends of the braces it closes are kept in `ends`, as [`SpanEnds::one_within`]
/// keeps them.
///
/// A scan byte by byte stops at every quote; in a block, which bytes are inside a string is
/// told by counting quotes instead: a byte is escaped where an odd run of backslashes ends
/// just before it, and inside a string where the quotes before it that are not escaped are
/// odd in number (the other way round where the block began inside one). That is what the
/// scan byte by byte says as long as every backslash of the block is inside a string, where
/// it escapes the byte after it; outside a string a backslash escapes nothing, so a block
/// that has one there is read byte by byte. Only the braces outside strings are then looked
/// at one by one, and most blocks of a reply hold none.
///
/// (Written by hand: a JSON library validates, it does not match the braces of text that is
/// not JSON.)
fn strict_blocks(
    bytes: &[u8],
    open: &mut Vec<usize>,
    ends: &mut Table,
    at: (&mut usize, &mut bool),
    stop: usize,
    read: &dyn Fn(usize) -> Option<usize>,
) -> Option<usize> {
    let (mut i, mut in_string) = (*at.0, *at.1);
    'blocks: while let Some(Marks { quotes, backslashes, opens, closes }) = Marks::at(bytes, i, stop) {
        let (escaped, escapes_next) = escaped_bytes(backslashes);
        let mut inside = prefix_xor(quotes & !escaped);
        if in_string {
            inside = !inside;
        }
        if backslashes & !inside != 0 {
            let end = i + BLOCK;
            while i < end {
                match (in_string, bytes[i]) {
                    (false, b'"') => in_string = true,
                    (false, b'{') => match read(i) {
                        Some(past) => {
                            i = past;
                            continue 'blocks;
                        }
                        None => open.push(i),
                    },
                    (false, b'}') => {
                        if let Some(end) = close(open, ends, i) {
                            return Some(end);
                        }
                    }
                    (true, b'\\') => i += 1,
                    (true, b'"') => in_string = false,
                    _ => {}
                }
                i += 1;
            }
            continue;
        }
        let mut braces = (opens | closes) & !inside;
        while braces != 0 {
            let k = braces.trailing_zeros() as usize;
            braces &= braces - 1;
            if opens >> k & 1 == 1 {
                if let Some(past) = read(i + k) {
                    i = past;
                    in_string = false;
                    continue 'blocks;
                }
                open.push(i + k);
            } else if let Some(end) = close(open, ends, i + k) {
                return Some(end);
            }
        }
        in_string = inside >> 63 == 1;
        i += BLOCK + usize::from(escapes_next);
    }
    (*at.0, *at.1) = (i, in_string);
    None
}

/// A `}` at `i` outside a string, in the strict scan: the innermost brace open ends there.
/// The span's end, where that closes it or there is nothing to close.
#[inline(always)]
fn close(open: &mut Vec<usize>, ends: &mut Table, i: usize) -> Option<usize> {
    match open.pop() {
        Some(p) => {
            ends.set(p, Ok(i + 1));
            open.is_empty().then_some(i + 1)
        }
        // Only where the scan did not start at a `{`.
        None => Some(i + 1),
    }
}

/// Where a scan stops next: a quote or a backslash inside a string, a quote or a brace
/// outside one. Found in a block of [`BLOCK`] bytes looked at once, where a whole block is
/// left before the scan's limit, so that each stop costs a few instructions (a search called
/// for each costs some dozens, and on the hard mix stops are some ten bytes apart).
#[derive(Default)]
struct Events {
    /// The block: where it begins, and its stops inside strings and outside them.
    at: Option<usize>,
    inside: u64,
    outside: u64,
}

impl Events {
    /// The first stop at or after `i` and before `stop`.
    #[inline(always)]
    fn next(&mut self, bytes: &[u8], mut i: usize, stop: usize, in_string: bool) -> Option<usize> {
        loop {
            let base = match self.at {
                Some(base) if base <= i && i < base + BLOCK => base,
                _ => {
                    let Some(marks) = Marks::at(bytes, i, stop) else {
                        let window = bytes.get(i..stop)?;
                        let next = if in_string {
                            memchr::memchr2(b'"', b'\\', window)
                        } else {
                            memchr::memchr3(b'"', b'{', b'}', window)
                        };
                        return next.map(|k| i + k);
                    };
                    self.inside = marks.quotes | marks.backslashes;
                    self.outside = marks.quotes | marks.opens | marks.closes;
                    self.at = Some(i);
                    i
                }
            };
            let stops = if in_string { self.inside } else { self.outside } >> (i - base);
            if stops != 0 {
                return Some(i + stops.trailing_zeros() as usize);
            }
            i = base + BLOCK;
        }
    }
}

/// The bytes of a block that a backslash escapes, where every backslash is inside a string
/// and none escapes the block's first byte: those just past an odd run of backslashes; and
/// whether the last one escapes the byte after the block. (The carry-free form of the
/// subtraction that tells the runs that begin on an odd byte from those on an even one.)
#[inline(always)]
fn escaped_bytes(backslashes: u64) -> (u64, bool) {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    if backslashes == 0 {
        return (0, false);
    }
    let code = (((backslashes << 1) | ODD).wrapping_sub(backslashes)) ^ ODD;
    (code ^ backslashes, (code & backslashes) >> 63 == 1)
}

/// Each bit the parity of the bits at and below it.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// Scans in the same state are one scan from here on: their stacks are zipped from the top.
/// A scan with nothing open has nothing left to tell, and is dropped.
fn join_alike(tracks: &mut Vec<Track>) {
    tracks.retain(|t| !t.open.is_empty());
    let mut k = 1;
    while k < tracks.len() {
        let Some(j) = (0..k).find(|&j| tracks[j].state == tracks[k].state) else {
            k += 1;
            continue;
        };
        let mut other = tracks.swap_remove(k);
        let into = &mut tracks[j];
        if into.open.len() < other.open.len() {
            std::mem::swap(&mut into.open, &mut other.open);
        }
        let offset = into.open.len() - other.open.len();
        for (n, level) in other.open.into_iter().enumerate() {
            let slot = &mut into.open[offset + n];
            let mine = std::mem::replace(slot, Level::Many(Vec::new()));
            *slot = mine.join(level);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::memo::{Mode, Validator};
    use crate::exact::repair::{ColonRule, repaired_span};
    use crate::exact::strict::strict_span;
    use std::collections::HashMap;

    /// Every brace's span ends as a scan from it alone says, asked in order, from the last
    /// brace back (the ends a scan of an outer span kept are read for inner ones), and from
    /// the middle out both ways (scans before and after those made, and across them).
    fn agree(text: &str) {
        let braces: Vec<usize> = text.match_indices('{').map(|(j, _)| j).collect();
        let half = braces.len() / 2;
        let outward: Vec<usize> = (0..braces.len())
            .map(|k| if k % 2 == 0 { half + k / 2 } else { half - 1 - k / 2 })
            .filter_map(|k| braces.get(k).copied())
            .collect();
        // The objects the readings read, which a scan told of steps over.
        let read = |mode: Mode| -> HashMap<usize, usize> {
            braces.iter().filter_map(|&j| Some((j, Validator::once(text, mode).object_at(j).ok()?))).collect()
        };
        let (read_strictly, read_wide) = (read(Mode::Strict), read(Mode::Wide));
        let strictly = |p: usize| read_strictly.get(&p).copied();
        let repaired = |p: usize| read_strictly.get(&p).or_else(|| read_wide.get(&p)).copied();
        for order in [braces.clone(), braces.iter().rev().copied().collect(), outward] {
            let mut strict = SpanEnds::new(text, SpanRule::Strict);
            let mut wide = SpanEnds::new(text, SpanRule::Wide);
            let mut narrow = SpanEnds::new(text, SpanRule::Narrow);
            let mut strict_knowing = SpanEnds::new(text, SpanRule::Strict);
            let mut wide_knowing = SpanEnds::new(text, SpanRule::Wide);
            for &j in &order {
                let seed = strict_span(text, j);
                assert_eq!(strict.end(j), seed, "strict at {j} in {text:?}");
                assert_eq!(strict_knowing.end_knowing(j, &strictly), seed, "strict knowing at {j} in {text:?}");
                let seed = repaired_span(text, j, ColonRule::Wide, None).map(|r| r.end);
                assert_eq!(wide.end(j), seed, "wide at {j} in {text:?}");
                assert_eq!(wide_knowing.end_knowing(j, &repaired), seed, "wide knowing at {j} in {text:?}");
                let seed = repaired_span(text, j, ColonRule::Narrow, None).map(|r| r.end);
                assert_eq!(narrow.end(j), seed, "narrow at {j} in {text:?}");
            }
        }
    }

    #[test]
    fn objects_read_are_stepped_over_as_scanned() {
        let entries: String =
            (0..40).map(|k| format!(r#"{{"find": "a \"{k}\" {{", "n": [{k}, {{"x": "}}"}}]}}, "#)).collect();
        for t in [
            // An envelope cut off after its last whole entry, alone and after prose.
            format!(r#"{{"edits": [{entries}{{"find": "cut"#),
            format!(r#"Here {{ "html": "…", … }} then {{"edits": [{entries}{{"find": "cut"#),
            // Entries whose strings the repair reads (an unescaped quote), and an envelope
            // that closes after them.
            format!(r#"{{"edits": [{entries}{{"find": "the "all" label"}}, {entries}], "x": 1}} {{"#),
            format!(r#"{{"a": "{{", "b": [{entries}"}}"#),
        ] {
            agree(&t);
        }
        // A scan told of nothing reads every byte of the cut envelope; told of its entries,
        // it steps over them.
        let t = format!(r#"{{"edits": [{entries}{{"find": "cut"#);
        let braces: Vec<usize> = t.match_indices('{').map(|(j, _)| j).collect();
        let read: HashMap<usize, usize> =
            braces.iter().filter_map(|&j| Some((j, Validator::once(&t, Mode::Strict).object_at(j).ok()?))).collect();
        let mut told = SpanEnds::new(&t, SpanRule::Strict);
        assert_eq!(told.end_knowing(0, &|p| read.get(&p).copied()), None);
        assert_eq!(told.work.hits, 40, "{:?}", told.work);
        let mut untold = SpanEnds::new(&t, SpanRule::Strict);
        assert_eq!(untold.end(0), None);
        assert_eq!(untold.work.hits, 0, "{:?}", untold.work);
    }

    #[test]
    fn ends_agree_with_a_scan_from_each_brace() {
        for t in [
            r#"{"a": {"b": [1, {"c": "}"}]}, "d": "\"{"} tail {"x": 1}"#,
            r#"{"a":{"a":{"a":{"a":"#,
            r#""{"{"{"{"{"{"#,
            r#"{"\"{"\"{"\"{"\"}"}"}"#,
            r#"{"a":"{"a":"{"a":""#,
            r#"{"html": "<q>"hi"</q>", "log": "a: b"} {"k": "v" x} }"#,
            r#"{"notes": "read as { "faithful": true }; no", "a": {"b": "c": 1}}"#,
            r#"{"a": [{"b": "x": 1}], "c": "y": 2} {"d": ]{"e": "z": 3}}"#,
            r#"{"a": {"b": ] "c": "d" }, "e": "f": "g"}"#,
            "{\"a\": \"\\é\"} {\"b\\\": 1} \\{\"{}\"}",
            "{{}{\"}\"}}}{",
        ] {
            agree(t);
        }
    }

    #[test]
    fn ends_agree_on_random_brace_laden_text() {
        // A small linear congruential generator: the same texts on every run.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let alphabet = ['{', '}', '"', '\\', ':', ',', '[', ']', ' ', 'a', 'u', '0', '\n'];
        for _ in 0..3000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 58) as usize + 1;
            let text: String = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                })
                .collect();
            agree(&text);
        }
    }

    /// Texts longer than a block, which the strict scan reads a block at a time: quotes
    /// escaped and not, runs of backslashes that end at and around a block's edge, and
    /// backslashes outside strings (a block that holds one is read byte by byte).
    #[test]
    fn ends_agree_on_texts_read_a_block_at_a_time() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            seed >> 33
        };
        let alphabet = ['{', '}', '"', '"', '\\', '\\', ':', ' ', 'a', 'é'];
        for _ in 0..400 {
            let len = 64 + next() as usize % 200;
            let text: String = (0..len).map(|_| alphabet[next() as usize % alphabet.len()]).collect();
            agree(&text);
        }
        for run in 0..5 {
            for pad in 56..72 {
                let backslashes = "\\".repeat(run);
                agree(&format!("{{\"{}{backslashes}\"}} {{\"a\": \"}}\"}} {{\"b\": 2}}", "x".repeat(pad)));
                agree(&format!("{{{}\\{{\"a\": \"{backslashes}\"}}}} {{}}", " ".repeat(pad)));
            }
        }
    }

    #[test]
    fn a_reply_nested_deep_costs_three_passes_at_most() {
        let text = "{\"a\":".repeat(100_000);
        // Asked from the innermost out, every span is scanned on its own until those scans
        // have read the reply's length again, and then all are found in one pass.
        let mut strict = SpanEnds::new(&text, SpanRule::Strict);
        let mut wide = SpanEnds::new(&text, SpanRule::Wide);
        for (j, _) in text.rmatch_indices('{') {
            assert_eq!((strict.end(j), wide.end(j)), (None, None));
        }
        let n = text.len() as u64;
        for work in [strict.work.bytes, wide.work.bytes] {
            assert!(2 * n < work && work <= 3 * n, "{work} bytes for {n}");
        }
    }

    /// A span that never balances is scanned to the reply's end, and the spans asked for
    /// after it, each past the last (as the resume-after-fail what-if asks), are read again
    /// one by one: the pass over every brace is not made for them.
    #[test]
    fn spans_asked_past_one_that_never_balances_are_scanned_one_by_one() {
        // A lone quote: the first span reads every later brace as inside a string.
        let text = format!("{{\"q\" \" {}", "{\"a\": 1} ".repeat(10_000));
        let braces: Vec<usize> = text.match_indices('{').map(|(j, _)| j).collect();
        let mut strict = SpanEnds::new(&text, SpanRule::Strict);
        assert_eq!(strict.end(0), None);
        for &j in braces.iter().skip(1).step_by(100) {
            assert_eq!(strict.end(j), strict_span(&text, j), "at {j}");
        }
        let n = text.len() as u64;
        assert!(strict.work.bytes < n + n / 50, "{} bytes for {n}", strict.work.bytes);
        assert!(!strict.complete);
    }

    /// The walks ask for a failed candidate's span, then descend into it and ask for those of
    /// the failed candidates inside: one scan of the outer span finds them all.
    #[test]
    fn spans_inside_a_scanned_one_are_not_scanned_again() {
        for text in ["{\"a\":".repeat(2_000), format!("{{{}}} tail", "{\"a\": [1,}".repeat(2_000))] {
            let n = text.len() as u64;
            for rule in [SpanRule::Strict, SpanRule::Wide] {
                let mut ends = SpanEnds::new(&text, rule);
                for (j, _) in text.match_indices('{') {
                    assert_eq!(ends.end(j), strict_span(&text, j), "at {j}");
                }
                assert!(ends.work.bytes <= n, "{} bytes for {n}", ends.work.bytes);
                assert!(!ends.complete);
            }
        }
    }

    /// A brace of prose before a long answer is spanned on its own: the pass over every
    /// brace of the reply is not made for it.
    #[test]
    fn a_short_span_is_scanned_on_its_own() {
        let text = format!("the contract is {{html, log}} and {}", "{\"a\": 1} ".repeat(10_000));
        let mut strict = SpanEnds::new(&text, SpanRule::Strict);
        let at = text.find('{').unwrap();
        assert_eq!(strict.end(at), strict_span(&text, at));
        assert_eq!(strict.work.bytes, "{html, log}".len() as u64);
        assert!(!strict.complete);
    }
}
