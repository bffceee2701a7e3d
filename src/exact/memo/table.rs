//! Where the validators keep what they learned: outcomes by position, and the two shapes
//! of failure that would cost an entry per position otherwise (containers failing together,
//! a string scan failing past every quote).

use super::{Carries, Carrying, MEMO_MIN, Outcome, Work, kept};

/// Outcomes by position, in pages allocated where entries land: O(1) and cache-friendly
/// where the memo is dense (adversarial text), nearly nothing where it is sparse. An entry
/// is the outcome's distance from its position, so it fits in 32 bits: a success's in 31, a
/// failure's in 29 beside what it [`Carries`]. An outcome farther away than that is not
/// memoized (each lookup misses, and reading stays correct).
#[derive(Default)]
pub(crate) struct Table {
    pages: Vec<Option<Page>>,
}

const PAGE: usize = 256;

type Page = Box<[u32; PAGE]>;

thread_local! {
    /// Pages the thread's tables are done with, for the next ones: a scan's walks of one
    /// reply fill some hundred pages and let them go, and each taken from the allocator
    /// costs it a zeroed allocation and a free (some 200 instructions, more than zeroing a
    /// page the thread just used).
    static PAGES: std::cell::Cell<Vec<Page>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Pages a thread keeps: a megabyte.
const KEPT_PAGES: usize = 1024;

impl Drop for Table {
    /// Hands the pages back to the thread, where it keeps fewer than [`KEPT_PAGES`].
    fn drop(&mut self) {
        if !self.pages.is_empty() {
            kept::keep(&PAGES, KEPT_PAGES, self.pages.drain(..).flatten());
        }
    }
}

/// A page of empty entries: one the thread kept, emptied, or a new one.
fn empty_page() -> Page {
    match kept::take(&PAGES) {
        Some(mut page) => {
            page.fill(0);
            page
        }
        None => Box::new([0; PAGE]),
    }
}

const ERR_BIT: u32 = 1 << 31;

const CARRIES_SHIFT: u32 = 29;

const ERR_DISTANCE: u32 = (1 << CARRIES_SHIFT) - 1;

impl Table {
    pub(crate) fn get(&self, pos: usize) -> Option<Outcome> {
        self.get_carrying(pos).map(|o| o.map_err(|(f, _)| f))
    }

    /// The outcome at `pos`, a failure with what it carries.
    pub(crate) fn get_carrying(&self, pos: usize) -> Option<Result<usize, (usize, Carries)>> {
        let entry = *self.pages.get(pos / PAGE)?.as_ref()?.get(pos % PAGE)?;
        if entry == 0 {
            return None;
        }
        if entry & ERR_BIT == 0 {
            return Some(Ok(pos + (entry - 1) as usize));
        }
        let carries = match (entry >> CARRIES_SHIFT) & 3 {
            2 => Carries::Both,
            1 => Carries::Wide,
            _ => Carries::Neither,
        };
        Some(Err((pos + ((entry & ERR_DISTANCE) - 1) as usize, carries)))
    }

    pub(crate) fn set(&mut self, pos: usize, outcome: Outcome) {
        match outcome {
            Ok(end) => {
                if let Some(d) = distance(pos, end).filter(|&d| d < ERR_BIT) {
                    self.put(pos, d);
                }
            }
            Err(at) => self.set_failure(pos, at, Carries::Neither),
        }
    }

    pub(crate) fn set_failure(&mut self, pos: usize, at: usize, carries: Carries) {
        if let Some(d) = distance(pos, at).filter(|&d| d <= ERR_DISTANCE) {
            self.put(pos, d | ERR_BIT | ((carries as u32) << CARRIES_SHIFT));
        }
    }

    fn put(&mut self, pos: usize, entry: u32) {
        let index = pos / PAGE;
        match self.pages.get_mut(index) {
            Some(Some(page)) => page[pos % PAGE] = entry,
            _ => self.put_in_new_page(pos, entry),
        }
    }

    #[cold]
    fn put_in_new_page(&mut self, pos: usize, entry: u32) {
        let index = pos / PAGE;
        if self.pages.len() <= index {
            self.pages.resize_with(index + 1, || None);
        }
        let page = self.pages[index].get_or_insert_with(empty_page);
        page[pos % PAGE] = entry;
    }
}

/// The outcomes of containers: a [`Table`], and the containers of the last reading that
/// failed with many open, which fail together.
///
/// A reply nested deep that fails leaves every container open at the failure failing there
/// (`{"a":{"a":{"a":` all fail where the text ends). Written one by one, their entries fill
/// the table densely, four bytes a position; the walk then reads each back as it descends.
/// Kept together instead, they are a bit a position beside one outcome, and the table takes
/// them only when the next such group arrives.
#[derive(Default)]
pub(crate) struct Containers {
    pub(super) table: Table,
    pub(super) group: Option<FailedGroup>,
}

/// Containers that fail at one place: a bit for each position from `first`.
pub(super) struct FailedGroup {
    pub(super) first: usize,
    pub(super) bits: Vec<u64>,
    pub(super) at: usize,
    pub(super) carries: Carries,
}

impl FailedGroup {
    pub(super) fn holds(&self, pos: usize) -> bool {
        let Some(i) = pos.checked_sub(self.first) else { return false };
        self.bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// The group's bits for the 64 positions from `pos` (at or after `first`).
    pub(super) fn window(&self, pos: usize) -> u64 {
        let i = pos - self.first;
        let (k, shift) = (i / 64, i % 64);
        let low = self.bits.get(k).map_or(0, |w| w >> shift);
        let high = match shift {
            0 => 0,
            _ => self.bits.get(k + 1).map_or(0, |w| w << (64 - shift)),
        };
        low | high
    }

    /// Whether `pos` lies between the group's first position and past its last bit.
    pub(super) fn spans(&self, pos: usize) -> bool {
        pos >= self.first && pos - self.first < self.bits.len() * 64
    }

    /// The first position from `from` with a `{` not in the group (or where the group ends).
    /// Each brace passed over counts as a memo hit in `work`.
    #[inline(never)]
    pub(super) fn past_braces(&self, bytes: &[u8], from: usize, work: &mut Work) -> usize {
        let end = bytes.len().min(self.first + self.bits.len() * 64);
        let mut pos = from;
        while let Some(block) = bytes.get(pos..end.min(pos + 64)).filter(|b| !b.is_empty()) {
            let (open, known) = (brace_mask(block), self.window(pos));
            let unknown = open & !known;
            let passed = match unknown {
                0 => open,
                u => open & ((1 << u.trailing_zeros()) - 1),
            };
            work.hits += u64::from(passed.count_ones());
            if unknown != 0 {
                return pos + unknown.trailing_zeros() as usize;
            }
            pos += block.len();
        }
        pos
    }

    pub(super) fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(move |(k, &w)| {
            let base = self.first + k * 64;
            (0..64).filter(move |b| w >> b & 1 == 1).map(move |b| base + b)
        })
    }
}

/// A bit for each `{` in `block` (at most 64 bytes), eight bytes at a time.
fn brace_mask(block: &[u8]) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let words = block.chunks_exact(8);
    let tail = words.remainder();
    let mut mask = 0;
    for (k, word) in words.enumerate() {
        let y = <[u8; 8]>::try_from(word).map_or(0, u64::from_le_bytes) ^ u64::from_le_bytes([b'{'; 8]);
        // 0x80 in exactly the bytes of `y` that are zero, then one bit per byte, in order.
        let zero = !(((y & LO7) + LO7) | y | LO7);
        mask |= ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    let base = block.len() - tail.len();
    for (k, &b) in tail.iter().enumerate() {
        mask |= u64::from(b == b'{') << (base + k);
    }
    mask
}

/// The fewest containers failing together that are kept as a group.
pub(super) const GROUP_MIN: usize = 64;

impl Containers {
    #[inline]
    pub(crate) fn get_carrying(&self, pos: usize) -> Option<Carrying> {
        if let Some(known) = self.table.get_carrying(pos) {
            return Some(known);
        }
        let group = self.group.as_ref()?;
        group.holds(pos).then_some(Err((group.at, group.carries)))
    }

    pub(super) fn set(&mut self, pos: usize, outcome: Outcome) {
        self.table.set(pos, outcome);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.table.pages.is_empty() && self.group.is_none()
    }

    /// The containers of `frames` (in increasing order) fail at `at`, carrying `carries`.
    pub(super) fn fail_together(&mut self, frames: &[Frame], at: usize, carries: Carries) {
        let (Some(first), Some(last)) = (frames.first(), frames.last()) else { return };
        if frames.len() < GROUP_MIN {
            for f in frames {
                self.table.set_failure(f.start(), at, carries);
            }
            return;
        }
        if let Some(old) = self.group.take() {
            for pos in old.positions() {
                self.table.set_failure(pos, old.at, old.carries);
            }
        }
        let first = first.start();
        let mut bits = vec![0u64; (last.start() - first) / 64 + 1];
        for f in frames {
            let i = f.start() - first;
            if let Some(w) = bits.get_mut(i / 64) {
                *w |= 1 << (i % 64);
            }
        }
        self.group = Some(FailedGroup { first, bits, at, carries });
    }
}

/// The outcomes of strings: a [`Table`], and the last long scan that failed, kept whole as
/// a [`Run`].
///
/// A repaired string that never closes (`"{"{"{`… to the end of the text) passes every
/// quote after its own, and a string opened at any of them fails where it does. Written one
/// by one, their entries cost a store a quote; kept as a run, the scan's own bounds answer
/// for all of them, and the table takes them only when the next failing scan arrives.
#[derive(Default)]
pub(crate) struct Strings {
    pub(super) table: Table,
    pub(super) run: Run,
}

/// A string scan that failed: it opened at `open` and failed at `limit`, passing every quote
/// between without closing. (Empty when `limit` is not past `open`.)
///
/// A quote inside the run that is not preceded by a backslash is one the scan passed as a
/// character the repair escapes: the scan looked at it (only an escape's second byte is
/// stepped over unseen, and a quote is that only after a backslash), and did not close
/// there. A string opened at it reads on from the same state, so it fails at `limit` too.
#[derive(Default, Clone, Copy)]
pub(super) struct Run {
    pub(super) open: usize,
    pub(super) limit: usize,
}

impl Run {
    /// Whether `pos` lies in the run.
    #[inline]
    pub(super) fn contains(self, pos: usize) -> bool {
        pos.wrapping_sub(self.open) < self.limit.wrapping_sub(self.open)
    }

    /// Whether a string opened at `pos` is one this run answers.
    #[inline]
    pub(super) fn holds(self, bytes: &[u8], pos: usize) -> bool {
        self.contains(pos) && (pos == self.open || bytes.get(pos.wrapping_sub(1)) != Some(&b'\\'))
    }
}

impl Strings {
    /// The outcome of the string opened at `pos`, where it is known.
    #[inline]
    pub(super) fn get(&self, bytes: &[u8], pos: usize) -> Option<Outcome> {
        if self.run.holds(bytes, pos) {
            return Some(Err(self.run.limit));
        }
        self.table.get(pos)
    }

    /// A scan from `open` failed at `limit`, passing every quote between. The run it makes
    /// replaces the current one: where it contains that one (it passed its opening quote, so
    /// it fails where that one fails), outright; where not, once the table holds what that one
    /// answered.
    pub(super) fn fail_run(&mut self, bytes: &[u8], open: usize, limit: usize) {
        let old = self.run;
        if !(open < old.open && old.open < limit) {
            self.flush(bytes);
        }
        self.run = Run { open, limit };
    }

    /// Writes the current run into the table: an entry at each quote a string may open at,
    /// where the failure lies far enough from it to be kept.
    #[cold]
    pub(super) fn flush(&mut self, bytes: &[u8]) {
        let Run { open, limit } = std::mem::take(&mut self.run);
        let Some(last) = limit.checked_sub(MEMO_MIN) else { return };
        let mut q = open;
        while q <= last {
            if q == open || bytes.get(q.wrapping_sub(1)) != Some(&b'\\') {
                self.table.set_failure(q, limit, Carries::Neither);
            }
            let Some(k) = bytes.get(q + 1..=last).and_then(|rest| memchr::memchr(b'"', rest)) else { break };
            q += 1 + k;
        }
    }
}

/// An entry's distance (plus one, so that 0 is no entry), if it fits in 32 bits.
fn distance(pos: usize, reach: usize) -> Option<u32> {
    reach.checked_sub(pos).and_then(|d| u32::try_from(d + 1).ok())
}

/// An open container. What it expects next is kept only for the innermost one: a container
/// opens where its parent expects a value, so when it closes its parent expects `,` or the
/// closer, whatever it expected before.
#[derive(Clone, Copy)]
pub(super) struct Frame(usize);

impl Frame {
    pub(super) fn new(start: usize, object: bool) -> Frame {
        Frame(start << 1 | usize::from(object))
    }

    pub(super) fn start(self) -> usize {
        self.0 >> 1
    }

    pub(super) fn object(self) -> bool {
        self.0 & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept_pages() -> usize {
        PAGES.with(|kept| {
            let pages = kept.take();
            let n = pages.len();
            kept.set(pages);
            n
        })
    }

    /// A table's pages go back to its thread when it is dropped, and the next table takes
    /// them emptied: nothing the first learned is known to the second.
    #[test]
    fn a_page_a_table_let_go_is_taken_again_empty() {
        // Tests share threads: what this one drops and takes is counted from where it starts.
        let before = kept_pages();
        let mut first = Table::default();
        // The same place in each page, whichever page the second table takes where.
        let positions = [3, PAGE + 3, 5 * PAGE + 3];
        for &p in &positions {
            first.set(p, Ok(p + 10));
        }
        drop(first);
        let kept = kept_pages();
        assert_eq!(kept, (before + positions.len()).min(KEPT_PAGES));
        let mut second = Table::default();
        second.set(PAGE + 100, Err(PAGE + 120));
        for &p in &positions {
            second.set(p + 1, Ok(p + 2));
        }
        assert!(kept_pages() < kept, "a new table takes the pages kept");
        for &p in &positions {
            assert_eq!(second.get(p), None, "{p} was the first table's");
            assert_eq!(second.get(p + 1), Some(Ok(p + 2)));
        }
        assert_eq!(second.get(PAGE + 100), Some(Err(PAGE + 120)));
    }

    proptest::proptest! {
        /// The brace mask has a bit exactly where the block has a `{`.
        #[test]
        fn the_brace_mask_marks_every_brace(block in proptest::collection::vec(
            proptest::sample::select(vec![b'{', b'}', b'z', 0xfb, 0x7b ^ 0x80, 0x00, b'"']), 0..=64,
        )) {
            let naive = block.iter().enumerate().fold(0u64, |m, (k, &b)| m | u64::from(b == b'{') << k);
            proptest::prop_assert_eq!(brace_mask(&block), naive);
        }
    }
}
