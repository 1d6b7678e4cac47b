//! A reusable store of records with a free list: after warm-up the hot path never allocates,
//! and memory is bounded by the most records ever alive at once (the I/Os in flight).

pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    /// Stores `value` and returns its index; reuses a freed slot when there is one.
    pub fn insert(&mut self, value: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = value;
                i
            }
            None => {
                self.items.push(value);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Returns a slot to the free list; its record stays readable until reused.
    pub fn remove(&mut self, index: u32) {
        self.free.push(index);
    }

    pub fn get(&self, index: u32) -> &T {
        &self.items[index as usize]
    }

    pub fn get_mut(&mut self, index: u32) -> &mut T {
        &mut self.items[index as usize]
    }

    /// Slots ever allocated: the high-water mark of records alive at once.
    pub fn capacity_used(&self) -> usize {
        self.items.len()
    }

    /// Records alive now.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }

    /// Every slot, live or free (callers keep their own liveness flag).
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    /// Every slot with its index, live or free (callers keep their own liveness flag).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.items.iter_mut().enumerate().map(|(i, t)| (i as u32, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused_so_memory_tracks_what_is_alive() {
        let mut s = Slab::default();
        for round in 0..1000u32 {
            let a = s.insert(round);
            let b = s.insert(round + 1);
            assert_eq!(*s.get(a), round);
            s.remove(a);
            s.remove(b);
        }
        assert_eq!(s.capacity_used(), 2);
        assert_eq!(s.live(), 0);
    }
}
