//! A first-in first-out ring of `Copy` items whose push and pop are inlined where they are used.
//!
//! The event queue's lanes (`event_queue.rs`) were `VecDeque`s: `VecDeque::push_back` stayed a
//! call inside `Simulation::issue` (about 24 instructions an I/O on the minimal model with the
//! call, session 22). Here the slots are a power of two, positions are a head and a length
//! masked into them, and growing (doubling, the items moved to the front) is a cold call.

#[derive(Clone)]
pub struct Fifo<T: Copy> {
    /// A power of two of slots (or none before the first push); `len` of them, from `head` round
    /// the end, hold the items.
    slots: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Fifo<T> {
    fn default() -> Self {
        Fifo { slots: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy> Fifo<T> {
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    #[inline(always)]
    pub fn push_back(&mut self, item: T) {
        if self.len == self.slots.len() {
            self.grow(item);
        }
        let at = (self.head + self.len) & self.mask();
        self.slots[at] = item;
        self.len += 1;
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        Some(&self.slots[self.head])
    }

    /// The items, front first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len).map(|i| &self.slots[(self.head + i) & self.mask()])
    }

    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.slots[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(item)
    }

    /// Twice the slots (64 at first), the items moved to the front in order; `fill` fills the
    /// slots not yet used (no slot is read before it is written).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let size = (2 * self.slots.len()).max(64);
        let mut slots = Vec::with_capacity(size);
        slots.extend((0..self.len).map(|k| self.slots[(self.head + k) & self.mask()]));
        slots.resize(size, fill);
        self.slots = slots;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Pushes and pops in any mix, across growths and the wrap, give what a `VecDeque` gives.
    #[test]
    fn behaves_as_a_vecdeque() {
        let mut fifo = Fifo::default();
        let mut reference = VecDeque::new();
        let mut x: u64 = 3;
        for n in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Phases that grow the queue to a few hundred, then drain it.
            let push = (x >> 33) % 8 < if (n / 2000) % 2 == 0 { 5 } else { 3 };
            if push {
                fifo.push_back(n);
                reference.push_back(n);
            } else {
                assert_eq!(fifo.pop_front(), reference.pop_front());
            }
            assert_eq!(fifo.front(), reference.front());
            assert_eq!((fifo.len(), fifo.is_empty()), (reference.len(), reference.is_empty()));
        }
        while let Some(expected) = reference.pop_front() {
            assert_eq!(fifo.pop_front(), Some(expected));
        }
        assert_eq!(fifo.pop_front(), None);
    }
}
