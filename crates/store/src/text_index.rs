//! Where a trace's text holds what: per piece of whole lines, in the file's order, the
//! times its records hold, so that a pass over the text that keeps only what falls in a
//! time range (the cut) passes over the pieces none of whose lines it keeps without
//! reading them. Made by the parse, which reads every line anyway, and kept with the store
//! cache.

use std::ops::Range;

/// What the lines of one piece of a trace's text hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPiece {
    /// Bytes of text: whole lines, their line ends included.
    pub len: u64,
    /// What kinds of lines it holds: [`TextPiece::STATES`], [`TextPiece::EVENTS`],
    /// [`TextPiece::MESSAGES`], [`TextPiece::OTHER`].
    pub holds: u8,
    /// Its state lines' smallest begin and largest end.
    pub state_begin: u64,
    pub state_end: u64,
    /// Its event lines' smallest and largest times.
    pub event_first: u64,
    pub event_last: u64,
    /// Its message lines' smallest logical send time, and the largest of their earlier
    /// logical time (the send or the receive, whichever comes first).
    pub message_send: u64,
    pub message_reach: u64,
    /// The smallest and largest of every time its state, event and message lines hold (a
    /// message's four).
    pub first: u64,
    pub last: u64,
}

impl TextPiece {
    /// State lines (`1:`), well formed, of a thread and CPU the header has.
    pub const STATES: u8 = 1;
    /// Event lines (`2:`), as states.
    pub const EVENTS: u8 = 2;
    /// Message lines (`3:`), as states.
    pub const MESSAGES: u8 = 4;
    /// Any other line: a comment, an empty line, a line the parse reported or read with
    /// care. A piece that holds one is read by every pass.
    pub const OTHER: u8 = 8;

    /// A piece of `len` bytes that holds nothing yet.
    pub const fn empty(len: u64) -> TextPiece {
        TextPiece {
            len,
            holds: 0,
            state_begin: u64::MAX,
            state_end: 0,
            event_first: u64::MAX,
            event_last: 0,
            message_send: u64::MAX,
            message_reach: 0,
            first: u64::MAX,
            last: 0,
        }
    }

    /// Does it hold lines of `kind` (one of the constants)?
    pub fn has(&self, kind: u8) -> bool {
        self.holds & kind != 0
    }

    /// A state line from `begin` to `end`.
    #[inline]
    pub fn state(&mut self, begin: u64, end: u64) {
        self.holds |= Self::STATES;
        self.state_begin = self.state_begin.min(begin);
        self.state_end = self.state_end.max(end);
        self.times(begin.min(end), begin.max(end));
    }

    /// An event line at `time`.
    #[inline]
    pub fn event(&mut self, time: u64) {
        self.holds |= Self::EVENTS;
        self.event_first = self.event_first.min(time);
        self.event_last = self.event_last.max(time);
        self.times(time, time);
    }

    /// A message line of times `[logical send, physical send, logical receive, physical
    /// receive]`.
    #[inline]
    pub fn message(&mut self, times: [u64; 4]) {
        let [send, psend, recv, precv] = times;
        self.holds |= Self::MESSAGES;
        self.message_send = self.message_send.min(send);
        self.message_reach = self.message_reach.max(send.min(recv));
        self.times(
            send.min(psend).min(recv).min(precv),
            send.max(psend).max(recv).max(precv),
        );
    }

    #[inline]
    fn times(&mut self, lo: u64, hi: u64) {
        self.first = self.first.min(lo);
        self.last = self.last.max(hi);
    }

    /// Any other line.
    #[inline]
    pub fn other(&mut self) {
        self.holds |= Self::OTHER;
    }

    /// The piece of this one's lines followed by `next`'s.
    #[must_use]
    pub fn then(&self, next: &TextPiece) -> TextPiece {
        TextPiece {
            len: self.len + next.len,
            holds: self.holds | next.holds,
            state_begin: self.state_begin.min(next.state_begin),
            state_end: self.state_end.max(next.state_end),
            event_first: self.event_first.min(next.event_first),
            event_last: self.event_last.max(next.event_last),
            message_send: self.message_send.min(next.message_send),
            message_reach: self.message_reach.max(next.message_reach),
            first: self.first.min(next.first),
            last: self.last.max(next.last),
        }
    }
}

impl Default for TextPiece {
    fn default() -> Self {
        TextPiece::empty(0)
    }
}

/// The pieces of a trace's text (see the module's documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextIndex {
    /// Where the first piece starts in the text (the byte after the header's line).
    pub start: u64,
    /// The pieces, in the text's order, each right after the one before.
    pub pieces: Vec<TextPiece>,
    /// The size pieces are merged up to (see [`TextIndex::push`]).
    pub piece: u64,
}

impl TextIndex {
    /// The size pieces are merged up to, by default: a thousand a gigabyte, 60 kB of the
    /// store cache, which a pass skips with little text read in vain.
    pub const PIECE: u64 = 1 << 20;

    /// An index of the text from `start` on, its pieces merged up to `piece` bytes.
    pub fn new(start: u64, piece: u64) -> TextIndex {
        TextIndex {
            start,
            pieces: Vec::new(),
            piece,
        }
    }

    /// Adds the next piece of the text, merged into the last one while that one is smaller
    /// than the index's piece size.
    pub fn push(&mut self, piece: TextPiece) {
        if piece.len == 0 {
            return;
        }
        match self.pieces.last_mut() {
            Some(last) if last.len < self.piece => *last = last.then(&piece),
            _ => self.pieces.push(piece),
        }
    }

    /// Where the text the index covers ends.
    pub fn end(&self) -> u64 {
        self.start + self.pieces.iter().map(|p| p.len).sum::<u64>()
    }

    /// The ranges of the text (offsets in it, each as long as it can be, in order) made of
    /// pieces that `skips` says a pass can leave unread.
    pub fn skipped(&self, skips: impl Fn(&TextPiece) -> bool) -> Vec<Range<u64>> {
        let mut out: Vec<Range<u64>> = Vec::new();
        let mut at = self.start;
        for p in &self.pieces {
            let end = at + p.len;
            if skips(p) {
                match out.last_mut() {
                    Some(last) if last.end == at => last.end = end,
                    _ => out.push(at..end),
                }
            }
            at = end;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{TextIndex, TextPiece};

    #[test]
    fn pieces_merge_up_to_their_size_and_skips_join() {
        let mut index = TextIndex::new(10, TextIndex::PIECE);
        let mut a = TextPiece::empty(TextIndex::PIECE / 2);
        a.state(5, 9);
        let mut b = TextPiece::empty(TextIndex::PIECE / 2);
        b.event(3);
        b.message([7, 8, 4, 2]);
        let mut c = TextPiece::empty(100);
        c.other();
        index.push(a);
        index.push(TextPiece::empty(0));
        index.push(b);
        index.push(c);
        assert_eq!(index.pieces.len(), 2);
        let ab = index.pieces[0];
        assert_eq!(ab.len, TextIndex::PIECE);
        assert!(ab.has(TextPiece::STATES) && ab.has(TextPiece::EVENTS));
        assert!(ab.has(TextPiece::MESSAGES) && !ab.has(TextPiece::OTHER));
        assert_eq!((ab.state_begin, ab.state_end), (5, 9));
        assert_eq!((ab.event_first, ab.event_last), (3, 3));
        assert_eq!((ab.message_send, ab.message_reach), (7, 4));
        assert_eq!((ab.first, ab.last), (2, 9));
        assert!(index.pieces[1].has(TextPiece::OTHER));
        assert_eq!(index.end(), 10 + TextIndex::PIECE + 100);
        assert_eq!(
            index.skipped(|_| true),
            vec![10..10 + TextIndex::PIECE + 100]
        );
        assert_eq!(
            index.skipped(|p| !p.has(TextPiece::OTHER)),
            vec![10..10 + TextIndex::PIECE]
        );
        assert!(index.skipped(|_| false).is_empty());
    }
}
