//! What the `*_costs` examples measure each step by: this thread's CPU time and minor faults.

/// This thread's CPU time (ns, `schedstat`'s first field) and its minor faults (`stat`'s tenth).
pub fn thread_costs() -> (u64, u64) {
    let cpu = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux's schedstat");
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("Linux's stat");
    // The fields after the command's name (in parentheses, which may hold spaces): the third
    // field of the line is the first of these.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let minflt = after.split(' ').nth(7).expect("minflt").parse().expect("a count");
    (cpu.split(' ').next().expect("run time").parse().expect("nanoseconds"), minflt)
}

/// `f()`, with its CPU time and minor faults written to stderr after `label`.
pub fn measured<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let (cpu0, flt0) = thread_costs();
    let out = f();
    let (cpu1, flt1) = thread_costs();
    eprint!("{label} {:.1} ms {} faults; ", (cpu1 - cpu0) as f64 / 1e6, flt1 - flt0);
    out
}
