//! Where each path sits in a policy's own list, by its id: O(1) look-ups however many paths a
//! device has. The harness numbers a device's paths one after the other, so the position is
//! usually the id less the first id, with no memory to read (on a host of thousands of devices
//! a table would be one more cache miss per look-up); ids out of that order go to a table indexed
//! by id when they are close together, else to a hash map.

use crate::PathId;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub enum PathPositions {
    /// Ids `first`, `first + 1`, ... at positions 0, 1, ...
    Consecutive {
        first: u32,
        count: u32,
    },
    /// A table indexed by `id - first`, at most 4 slots per path.
    Dense {
        first: u32,
        slots: Vec<Option<u32>>,
        count: usize,
    },
    Sparse(HashMap<PathId, usize>),
}

impl Default for PathPositions {
    fn default() -> Self {
        PathPositions::Consecutive { first: 0, count: 0 }
    }
}

impl PathPositions {
    /// Records that path `id` is at `index` (the first position given for an id stays): O(1)
    /// amortized while ids come in order.
    pub fn add(&mut self, id: PathId, index: usize) {
        if let PathPositions::Consecutive { first, count } = self {
            if index == *count as usize && (*count == 0 || id.0 == *first + *count) {
                *first = if *count == 0 { id.0 } else { *first };
                *count += 1;
                return;
            }
            let slots = (0..*count).map(Some).collect();
            *self = PathPositions::Dense { first: *first, slots, count: *count as usize };
        }
        if let PathPositions::Dense { first, slots, count } = self {
            *count += 1;
            if slots.is_empty() {
                *first = id.0;
            }
            let lo = (*first).min(id.0);
            let span = (*first as usize + slots.len()).max(id.0 as usize + 1) - lo as usize;
            if span <= 4 * *count {
                if lo < *first {
                    slots.splice(0..0, std::iter::repeat_n(None, (*first - lo) as usize));
                    *first = lo;
                }
                let slot = (id.0 - *first) as usize;
                if slot >= slots.len() {
                    slots.resize(slot + 1, None);
                }
                slots[slot].get_or_insert(index as u32);
                return;
            }
            let mut map: HashMap<PathId, usize> = HashMap::with_capacity(*count);
            for (slot, i) in slots.iter().enumerate() {
                if let Some(i) = i {
                    map.insert(PathId(*first + slot as u32), *i as usize);
                }
            }
            *self = PathPositions::Sparse(map);
        }
        if let PathPositions::Sparse(map) = self {
            map.entry(id).or_insert(index);
        }
    }

    /// Inlined for consecutive ids (the harness's usual numbering), the tables in a call of
    /// their own: callgrind on bench-minimal, session 20, −16 instructions an I/O (session 17
    /// had measured the same split without the attribute at ±0).
    #[inline(always)]
    pub fn get(&self, id: PathId) -> Option<usize> {
        match self {
            PathPositions::Consecutive { first, count } => {
                let i = id.0.checked_sub(*first)?;
                (i < *count).then_some(i as usize)
            }
            _ => self.get_in_table(id),
        }
    }

    #[inline(never)]
    fn get_in_table(&self, id: PathId) -> Option<usize> {
        match self {
            PathPositions::Consecutive { .. } => unreachable!("handled by get"),
            PathPositions::Dense { first, slots, .. } => {
                let slot = id.0.checked_sub(*first)? as usize;
                slots.get(slot).copied().flatten().map(|i| i as usize)
            }
            PathPositions::Sparse(map) => map.get(&id).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_path_and_no_other_whatever_the_ids() {
        let many: Vec<u32> = (0..40).map(|i| 1000 - 7 * i).collect();
        let repeated = vec![4, 5, 5, 6];
        for ids in
            [vec![7, 5, 6, 4], vec![100, 3, 2_000_000, 8], vec![0], vec![9, 11, 13], many, vec![3, 4, 5], repeated]
        {
            let mut p = PathPositions::default();
            for (i, &id) in ids.iter().enumerate() {
                p.add(PathId(id), i);
            }
            for (i, &id) in ids.iter().enumerate() {
                // The first position given for an id stays.
                let first = ids.iter().position(|&other| other == id).unwrap();
                assert_eq!(p.get(PathId(id)), Some(first), "{ids:?} at {i}");
            }
            for absent in [1, 2, 10, 12, 99, 3_000_000] {
                if !ids.contains(&absent) {
                    assert_eq!(p.get(PathId(absent)), None, "{ids:?}");
                }
            }
        }
    }
}
