//! A min-queue of events keyed by unique integers (time, then sequence number).
//!
//! `std::collections::BinaryHeap` orders through `Ord` (an `Ordering` built from the reversed
//! 128-bit comparison) and pops by sifting to the bottom and back up; with keys known unique,
//! one `<` per level and one copy per level is enough: about a third fewer instructions per
//! event on the minimal model (callgrind). The order is the same: the least key first.
//!
//! A few entries (the usual case: a service completion per busy station, or the trip back of
//! each I/O in service where a station never makes work wait) are kept as a sorted array
//! instead, least key first from `head`: a pop takes the entry at `head` and moves `head` on, a
//! push shifts the greater keys up one place from the end. Most events are scheduled a while
//! ahead of the others (a service time, a trip), so a push usually passes few entries; the
//! array was kept greatest first until session 27, where a push passed every lesser key: on
//! 1 × 8 × 32 with the trips back in the heap (about 20-32 entries) the binary heap's sifts
//! cost some 150 instructions an I/O. Past `HEAP_FROM` entries the array becomes a heap (an
//! array sorted least first is a valid heap), and back when a pop leaves `SORTED_UP_TO` (the
//! gap keeps a size near either end from switching at every event). The keys are unique, so
//! the order is the same in both forms.

/// Entries at which the sorted array becomes a binary heap.
const HEAP_FROM: usize = 48;

/// Entries left by a pop at which the heap becomes a sorted array again.
const SORTED_UP_TO: usize = 16;

/// Entries taken from the sorted array's front before the rest is moved back to its start.
const COMPACT_AT: usize = 256;

/// A heap entry: `key` orders it, `item` rides along. Both are plain data (`Copy`), so an
/// entry moves by copying and the sifts need no `unsafe` hole.
#[derive(Clone, Copy)]
pub struct Keyed<T: Copy> {
    pub key: u128,
    pub item: T,
}

pub struct MinHeap<T: Copy> {
    /// While `sorted`: `items[head..]`, least key first (those before `head` are taken); else a
    /// binary heap with the least key first (and `head` 0).
    items: Vec<Keyed<T>>,
    head: usize,
    sorted: bool,
}

impl<T: Copy> MinHeap<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        MinHeap { items: Vec::with_capacity(capacity), head: 0, sorted: true }
    }

    /// The entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Keyed<T>> {
        self.items[self.head..].iter()
    }

    /// The least key, if any.
    #[inline]
    pub fn least_key(&self) -> Option<u128> {
        self.items.get(self.head).map(|e| e.key)
    }

    #[inline(always)]
    pub fn push(&mut self, entry: Keyed<T>) {
        if !self.sorted {
            return self.heap_push(entry);
        }
        if self.items.len() - self.head >= HEAP_FROM {
            self.become_heap();
            return self.heap_push(entry);
        }
        let mut hole = self.items.len();
        self.items.push(entry);
        let head = self.head;
        let items = &mut self.items[..];
        while hole > head && items[hole - 1].key > entry.key {
            items[hole] = items[hole - 1];
            hole -= 1;
        }
        items[hole] = entry;
    }

    /// Takes the entry with the least key.
    #[inline]
    pub fn pop(&mut self) -> Option<Keyed<T>> {
        if self.sorted {
            let top = *self.items.get(self.head)?;
            self.head += 1;
            if self.head == self.items.len() {
                self.items.clear();
                self.head = 0;
            } else if self.head >= COMPACT_AT {
                self.compact();
            }
            return Some(top);
        }
        let top = self.heap_pop();
        if self.items.len() <= SORTED_UP_TO {
            self.become_sorted();
        }
        top
    }

    /// The taken entries' room given back: the rest moved to the array's start.
    #[cold]
    fn compact(&mut self) {
        self.items.drain(..self.head);
        self.head = 0;
    }

    #[cold]
    fn become_heap(&mut self) {
        self.compact();
        self.sorted = false;
    }

    #[cold]
    fn become_sorted(&mut self) {
        self.items.sort_unstable_by_key(|e| e.key);
        self.sorted = true;
    }

    #[inline]
    fn heap_push(&mut self, entry: Keyed<T>) {
        let mut hole = self.items.len();
        self.items.push(entry);
        let items = &mut self.items[..];
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if items[parent].key <= entry.key {
                break;
            }
            items[hole] = items[parent];
            hole = parent;
        }
        items[hole] = entry;
    }

    #[inline]
    fn heap_pop(&mut self) -> Option<Keyed<T>> {
        let last = self.items.pop()?;
        let Some(&top) = self.items.first() else {
            return Some(last);
        };
        let items = &mut self.items[..];
        let n = items.len();
        let mut hole = 0;
        loop {
            let mut child = 2 * hole + 1;
            if child >= n {
                break;
            }
            // The lesser child by arithmetic, not a branch: on a deep heap (an open loop's
            // arrivals, one per device) which child is less is a coin toss at every level.
            let right = (child + 1).min(n - 1);
            child += usize::from(items[right].key < items[child].key);
            if last.key <= items[child].key {
                break;
            }
            items[hole] = items[child];
            hole = child;
        }
        items[hole] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and pops interleaved give the least key each time, as a sorted list would.
    #[test]
    fn pops_come_in_key_order() {
        let mut heap = MinHeap::with_capacity(4);
        let mut reference: Vec<u128> = Vec::new();
        let mut x: u64 = 7;
        for n in 0..5000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = (u128::from(x >> 44) << 64) | u128::from(n);
            heap.push(Keyed { key, item: n });
            reference.push(key);
            if (x >> 20).is_multiple_of(3) {
                reference.sort_unstable_by(|a, b| b.cmp(a));
                let expected = reference.pop();
                let got = heap.pop().map(|e| e.key);
                assert_eq!(got, expected);
            }
        }
        reference.sort_unstable_by(|a, b| b.cmp(a));
        while let Some(expected) = reference.pop() {
            assert_eq!(heap.pop().map(|e| e.key), Some(expected));
        }
        assert!(heap.pop().is_none());
    }

    /// Sizes that go up past `HEAP_FROM` and down past `SORTED_UP_TO` again and again (each
    /// switch between the sorted array and the heap) still give the least key each time.
    #[test]
    fn switching_forms_keeps_the_order() {
        let mut heap = MinHeap::with_capacity(4);
        let mut reference: Vec<u128> = Vec::new();
        let mut x: u64 = 3;
        let mut switches = 0;
        for n in 0..50_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Rising for 100 steps in 200, falling for the other 100: sizes sweep 0 to about 70.
            let rising = (n / 100) % 2 == 0;
            let push = if rising { (x >> 60) < 13 } else { (x >> 60) < 3 };
            let was_sorted = heap.sorted;
            if push {
                let key = (u128::from(x >> 54) << 64) | u128::from(n);
                heap.push(Keyed { key, item: n });
                reference.push(key);
            } else {
                reference.sort_unstable_by(|a, b| b.cmp(a));
                assert_eq!(heap.pop().map(|e| e.key), reference.pop());
                assert_eq!(heap.least_key(), reference.iter().min().copied());
            }
            switches += usize::from(was_sorted != heap.sorted);
        }
        assert!(switches > 20, "{switches} switches");
    }

    /// Each item leaves with its own key.
    #[test]
    fn items_ride_with_their_keys() {
        let mut heap = MinHeap::with_capacity(1);
        for k in (0..100u128).rev() {
            heap.push(Keyed { key: k, item: (k as u32, !(k as u32)) });
        }
        for k in 0..100u128 {
            let e = heap.pop().expect("present");
            assert_eq!((e.key, e.item), (k, (k as u32, !(k as u32))));
        }
    }
}
