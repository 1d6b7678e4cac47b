//! An `esxtop -b` capture (PDH-CSV) read over its bytes for `readers/esxtop.py`: its header's
//! disk counters placed (the rule of `esxtop._header_columns`, a column at a time) and each
//! sample line's fields of the columns read turned into numbers, with no Python string made per
//! field (a capture of every counter has 278,000 a line). Only lines as esxtop writes them are
//! read here (every field quoted, no quote inside, within csv's field limit: `pdh_csv.split`'s
//! rule); any other line is handed back whole, for `csv` to read with the lines after it, and a
//! header that is not such a line leaves the whole file to the Python reader. The file is read a
//! line at a time (any line end: LF, CR or CRLF; a UTF-8 byte-order mark skipped; bytes that are
//! not UTF-8 read as U+FFFD, as Python's `errors="replace"`): memory is a line's, not the file's.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader};

/// The objects read, with the table each becomes (`esxtop.OBJECTS`).
const OBJECTS: [(&str, &str); 3] =
    [("Physical Disk Adapter", "adapters"), ("Physical Disk Path", "paths"), ("Physical Disk SCSI Device", "devices")];
/// An adapter's own `Physical Disk(vmhbaN)` entry: its queue depth goes to the adapters' table.
const ADAPTER_DEPTH: (&str, &str) = ("Physical Disk", "Adapter Q Depth");
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A capture opened by the core: its header read (`header`), then its samples (`sample`).
#[pyclass(module = "pathlab._core")]
pub struct EsxtopCapture {
    lines: BufReader<File>,
    /// csv's field limit (`csv.field_size_limit()`): a longer field is csv's to refuse.
    limit: usize,
    line_num: usize,
    /// The header's line (decoded, its end left off) and each field's span in it.
    header: String,
    spans: Vec<(usize, usize)>,
    /// The file columns read, in order (`header`).
    columns: Vec<usize>,
}

/// A table's instances, in the order first named, each with its counters (each once, as ids
/// into `Placed::counters`) and their first file columns (`place`), then those columns' places
/// among the columns read (`read_header`).
type Instances = Vec<(String, Vec<(u32, usize)>)>;

/// The header as read: its first field, the hosts its columns name (in the order first named),
/// each table's instances, and the counters' names (each once).
struct Placed {
    first: String,
    hosts: Vec<String>,
    tables: Vec<(&'static str, Instances)>,
    counters: Vec<String>,
}

#[pymethods]
impl EsxtopCapture {
    #[new]
    fn new(path: &str, limit: usize) -> PyResult<Self> {
        let mut lines = BufReader::with_capacity(1 << 20, File::open(path)?);
        if lines.fill_buf()?.starts_with(BOM) {
            lines.consume(BOM.len());
        }
        Ok(EsxtopCapture { lines, limit, line_num: 0, header: String::new(), spans: Vec::new(), columns: Vec::new() })
    }

    /// The header read and placed: `(first field, hosts, {table: {instance: {counter: place}}})`,
    /// each counter's first column by its place among the columns read (their file columns in
    /// order: `columns`), or None where its line is not one esxtop writes (blank, a quote inside
    /// a field, a field without quotes or past csv's limit, a file without lines).
    fn header<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let placed = py.detach(|| self.read_header())?;
        let Some(placed) = placed else { return Ok(None) };
        let names: Vec<Bound<'py, PyString>> = placed.counters.iter().map(|c| PyString::new(py, c)).collect();
        let tables = PyDict::new(py);
        for (table, instances) in placed.tables {
            let dict = PyDict::new(py);
            for (instance, own) in instances {
                let counters = PyDict::new(py);
                for (counter, at) in own {
                    counters.set_item(&names[counter as usize], at)?;
                }
                dict.set_item(instance, counters)?;
            }
            tables.set_item(table, dict)?;
        }
        Ok(Some((placed.first, placed.hosts, tables).into_pyobject(py)?))
    }

    /// The file columns read, in order (each sample's figures, `sample`).
    fn columns(&self) -> Vec<usize> {
        self.columns.clone()
    }

    /// How many lines have been read.
    #[getter]
    fn line_num(&self) -> usize {
        self.line_num
    }

    /// The header's field `i` (a column's name, for what is said of it).
    fn column_name(&self, i: usize) -> Option<&str> {
        self.spans.get(i).map(|&(start, end)| &self.header[start..end])
    }

    /// The next sample, blank lines passed: `(time, figures, odd)` for a line as esxtop writes
    /// it, its figures of the columns read (`columns`) as float64 bytes (a missing or empty
    /// field: NaN), `odd` the `(place, text)` of fields that are not plain decimal numbers (NaN
    /// among the figures: Python's `float` decides them); the line itself, its end kept, for any
    /// other line (`csv`'s to read, with the lines after it: this object iterates them); None at
    /// the file's end.
    fn sample<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let read = py.detach(|| self.read_sample())?;
        Ok(match read {
            None => None,
            Some(Sample::Line(line)) => Some(PyString::new(py, &line).into_any()),
            Some(Sample::Figures { time, figures, odd }) => {
                let bytes: Vec<u8> = figures.iter().flat_map(|v| v.to_ne_bytes()).collect();
                Some((time, PyBytes::new(py, &bytes), odd).into_pyobject(py)?.into_any())
            }
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next line, its end kept (a record `csv` reads over several lines).
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<String>> {
        py.detach(|| {
            let mut line = Vec::new();
            if !self.read_line(&mut line)? {
                return Ok(None);
            }
            Ok(Some(text_of(line)))
        })
    }
}

enum Sample {
    Line(String),
    Figures { time: String, figures: Vec<f64>, odd: Vec<(usize, String)> },
}

impl EsxtopCapture {
    /// The next line's bytes into `line`, its end (LF, CR or CRLF) kept; false at the file's end.
    fn read_line(&mut self, line: &mut Vec<u8>) -> io::Result<bool> {
        line.clear();
        loop {
            let buf = self.lines.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            match find_either(buf, b'\n', b'\r') {
                Some(at) => {
                    let end = buf[at];
                    line.extend_from_slice(&buf[..=at]);
                    self.lines.consume(at + 1);
                    if end == b'\r' && self.lines.fill_buf()?.first() == Some(&b'\n') {
                        line.push(b'\n');
                        self.lines.consume(1);
                    }
                    break;
                }
                None => {
                    let taken = buf.len();
                    line.extend_from_slice(buf);
                    self.lines.consume(taken);
                }
            }
        }
        if line.is_empty() {
            return Ok(false);
        }
        self.line_num += 1;
        Ok(true)
    }

    fn read_header(&mut self) -> io::Result<Option<Placed>> {
        let mut line = Vec::new();
        if !self.read_line(&mut line)? {
            return Ok(None);
        }
        line.truncate(without_end(&line).len());
        let header = text_of(line);
        let mut spans = Vec::new();
        if !plain_fields(&header, self.limit, |start, end| spans.push((start, end))) || spans.is_empty() {
            return Ok(None);
        }
        let mut placed = place(&header, &spans);
        // The columns read in file order (each sample's figures), and each counter by its place among them.
        let mut columns: Vec<usize> = placed
            .tables
            .iter()
            .flat_map(|(_, instances)| instances.iter().flat_map(|(_, own)| own.iter().map(|c| c.1)))
            .collect();
        columns.sort_unstable();
        let mut at = vec![0usize; spans.len()];
        for (place, &column) in columns.iter().enumerate() {
            at[column] = place;
        }
        for (_, own) in placed.tables.iter_mut().flat_map(|(_, instances)| instances.iter_mut()) {
            for counter in own.iter_mut() {
                counter.1 = at[counter.1];
            }
        }
        self.header = header;
        self.spans = spans;
        self.columns = columns;
        Ok(Some(placed))
    }

    fn read_sample(&mut self) -> io::Result<Option<Sample>> {
        let mut line = Vec::new();
        loop {
            if !self.read_line(&mut line)? {
                return Ok(None);
            }
            // (`from_utf8` first: `from_utf8_lossy` checks valid text several times slower)
            let text = std::str::from_utf8(&line).map_or_else(|_| String::from_utf8_lossy(&line), Cow::Borrowed);
            let body = without_end(text.as_bytes());
            if body.is_empty() {
                continue; // a blank line
            }
            let body = &text[..body.len()];
            let mut figures = vec![f64::NAN; self.columns.len()];
            let mut odd = Vec::new();
            let mut time = None;
            let mut i = 0; // the field's column
            let mut next = 0; // the place among `columns` of the next column read
            let plain = plain_fields(body, self.limit, |start, end| {
                let field = &body[start..end];
                if i == 0 {
                    time = Some((start, end));
                }
                while next < self.columns.len() && self.columns[next] == i {
                    match number(field) {
                        Some(value) => figures[next] = value,
                        None if field.is_empty() => {}
                        None => odd.push((next, field.to_string())),
                    }
                    next += 1;
                }
                i += 1;
            });
            return Ok(Some(match (plain, time) {
                (true, Some((start, end))) => Sample::Figures { time: body[start..end].to_string(), figures, odd },
                _ => Sample::Line(text.into_owned()),
            }));
        }
    }
}

/// The text of a line's bytes: as they are where they are UTF-8 (a line esxtop writes), else
/// each sequence that is not UTF-8 read as U+FFFD (as Python's `errors="replace"` reads it).
fn text_of(line: Vec<u8>) -> String {
    String::from_utf8(line).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Where the first `a` or `b` is in `bytes`, eight bytes at a time (a capture's lines run to
/// megabytes, its header's fields to 278,000).
fn find_either(bytes: &[u8], a: u8, b: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let (fa, fb) = (ONES * u64::from(a), ONES * u64::from(b));
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let (xa, xb) = (word ^ fa, word ^ fb);
        // A byte of `xa` or `xb` is zero where the word holds `a` or `b` (the classic test: exact
        // in telling whether any byte is zero, so the bytes are searched only where one is).
        if ((xa.wrapping_sub(ONES) & !xa) | (xb.wrapping_sub(ONES) & !xb)) & HIGHS != 0 {
            return chunk.iter().position(|&c| c == a || c == b).map(|p| at + p);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|&c| c == a || c == b).map(|p| at + p)
}

/// A line's bytes without its end (`\r\n`, `\n` or `\r`, as `str.rstrip("\r\n")` takes them).
fn without_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && (line[end - 1] == b'\n' || line[end - 1] == b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// `pdh_csv.split`'s rule over a line's body (its end left off): where every field is quoted,
/// holds no quote and is within `limit` characters (an empty last one after a trailing comma),
/// true, each field's span given to `each` in order; false for any other line (csv's to read),
/// `each` having been given the fields before the first that is not so (the caller's to drop).
fn plain_fields(body: &str, limit: usize, mut each: impl FnMut(usize, usize)) -> bool {
    let bytes = body.as_bytes();
    if bytes.is_empty() {
        return true;
    }
    // Quoted: `"…"` or `"…",` (the latter three bytes at least: `",` alone is one quote).
    let trailing = bytes.len() >= 3 && bytes.ends_with(b"\",");
    if bytes[0] != b'"' || (!trailing && (bytes.len() < 2 || bytes[bytes.len() - 1] != b'"')) {
        return false;
    }
    let end = bytes.len() - if trailing { 2 } else { 1 };
    let mut start = 1;
    loop {
        // The field runs to the next quote, which must open a `","` before the last quote.
        let stop = match find_either(&bytes[start..end], b'"', b'"') {
            Some(q) => start + q,
            None => end,
        };
        if stop < end && (stop + 2 >= end || bytes[stop + 1] != b',' || bytes[stop + 2] != b'"') {
            return false;
        }
        if stop - start > limit && body[start..stop].chars().count() > limit {
            return false;
        }
        each(start, stop);
        if stop == end {
            break;
        }
        start = stop + 3;
    }
    if trailing {
        each(bytes.len(), bytes.len());
    }
    true
}

/// A plain decimal number (`[+-]digits[.digits][e[+-]digits]`, digits on one side of the point
/// at least), which Rust and Python both read correctly rounded; None for any other text.
fn number(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let from = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - from
    };
    let mut mantissa = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse().ok()
}

/// `(object, instance)` of `\\host\Object(instance)` (`esxtop._place`): the host up to its
/// first `\`, the object up to its first `(`, the instance to the last `)`.
fn place_of(head: &str) -> Option<(&str, &str)> {
    let rest = head.strip_prefix("\\\\")?;
    let rest = &rest[rest.find('\\')? + 1..];
    let open = rest.find('(')?;
    if !rest.ends_with(')') || rest.len() < open + 2 {
        return None;
    }
    Some((&rest[..open], &rest[open + 1..rest.len() - 1]))
}

/// The table (its place in `OBJECTS`) a column of this object and instance goes to
/// (`esxtop._table_of`).
fn table_of(object: &str, instance: &str, counter: &str) -> Option<usize> {
    if let Some(t) = OBJECTS.iter().position(|(o, _)| *o == object) {
        return Some(t);
    }
    ((object, counter) == ADAPTER_DEPTH && !instance.contains(':')).then_some(0)
}

/// The header's columns placed, a column at a time: each counter's first column under its table
/// and instance (`esxtop._header_columns`' rule), and the hosts named (`host_names._hosts_of`).
/// A head's columns stand together: its place and instance are found once for them.
fn place(header: &str, spans: &[(usize, usize)]) -> Placed {
    let first = header[spans[0].0..spans[0].1].to_string();
    let mut hosts: Vec<String> = Vec::new();
    let mut named: HashSet<&str> = HashSet::new();
    let mut prefix: Option<&str> = None; // `\\host\` of the last host named
    let mut tables: Vec<(&'static str, Instances)> = OBJECTS.iter().map(|&(_, table)| (table, Vec::new())).collect();
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut counters: Vec<String> = Vec::new();
    // (table, instance) → its place in its table's list; the counters met of each instance.
    let mut instances: HashMap<(usize, &str), usize> = HashMap::new();
    let mut met: HashSet<(usize, usize, u32)> = HashSet::new();
    let mut head_at: Option<(&str, Option<(&str, &str)>)> = None;
    let mut entry_at: Option<(&str, usize, usize)> = None; // the last head's (table, place in it)
    for (i, &(start, end)) in spans.iter().enumerate().skip(1) {
        let column = &header[start..end];
        if !prefix.is_some_and(|p| column.starts_with(p)) {
            if let Some(rest) = column.strip_prefix("\\\\") {
                let host = rest.split('\\').next().unwrap_or(rest);
                if named.insert(host) {
                    hosts.push(host.to_string());
                }
                // (a column of this host only: `\\\\host\\`, where the column holds the `\\`)
                prefix = (rest.len() > host.len()).then(|| &column[..2 + host.len() + 1]);
            }
        }
        let (head, counter) = match column.rfind('\\') {
            Some(at) => (&column[..at], &column[at + 1..]),
            None => ("", column),
        };
        let place = match head_at {
            Some((h, place)) if h == head => place,
            _ => {
                let place = place_of(head);
                head_at = Some((head, place));
                place
            }
        };
        let Some((object, instance)) = place else { continue };
        let Some(t) = table_of(object, instance, counter) else { continue };
        let own = &mut tables[t].1;
        let at = match entry_at {
            Some((h, table, at)) if h == head && table == t => at,
            _ => {
                let at = *instances.entry((t, instance)).or_insert_with(|| {
                    own.push((instance.to_string(), Vec::new()));
                    own.len() - 1
                });
                entry_at = Some((head, t, at));
                at
            }
        };
        let id = *ids.entry(counter).or_insert_with(|| {
            counters.push(counter.to_string());
            (counters.len() - 1) as u32
        });
        if met.insert((t, at, id)) {
            own[at].1.push((id, i));
        }
    }
    Placed { first, hosts, tables, counters }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EsxtopCapture>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_byte_is_found_first_wherever_it_lies() {
        for len in 0..40 {
            for at in 0..len {
                for &(byte, other) in &[(b'\n', b'\r'), (b'\r', b'\n'), (b'"', b'"')] {
                    let mut bytes = vec![b'x'; len];
                    bytes[at] = byte;
                    if at + 3 < len {
                        bytes[at + 3] = other; // a later one is not the first
                    }
                    assert_eq!(find_either(&bytes, byte, other), Some(at), "{len} {at}");
                }
            }
            // Bytes one off, and bytes with the high bit set, are none of them.
            let near: Vec<u8> =
                (0..len).map(|i| [b'\x0b', b'\x0c', b'\x09', b'\x8a', b'\x8d', b'!', b'#', 0xff][i % 8]).collect();
            assert_eq!(find_either(&near, b'\n', b'\r'), None);
            assert_eq!(find_either(&near, b'"', b'"'), None);
        }
    }

    fn fields(body: &str) -> Option<Vec<&str>> {
        let mut out = Vec::new();
        plain_fields(body, 10, |start, end| out.push(&body[start..end])).then_some(out)
    }

    #[test]
    fn fields_are_split_where_every_one_is_quoted_without_a_quote_inside() {
        assert_eq!(fields(r#""a","b,c","""#), Some(vec!["a", "b,c", ""]));
        assert_eq!(fields(r#""a","b","#), Some(vec!["a", "b", ""]));
        assert_eq!(fields("\"\",\"\""), Some(vec!["", ""]));
        assert_eq!(fields(""), Some(vec![]));
        for not_plain in ["\",", "\"", "a,\"b\"", "\"a\"\"b\"", "\"a\" ,\"b\"", "\"a\",b", "\"\"\",", "\"a\",\""] {
            assert_eq!(fields(not_plain), None, "{not_plain}");
        }
        // A field past the limit (in characters, not bytes) is csv's to refuse.
        assert_eq!(fields(r#""0123456789","é1234567890""#), None);
        assert_eq!(fields(r#""0123456789","é123456789""#), Some(vec!["0123456789", "é123456789"]));
    }

    #[test]
    fn plain_numbers_only_are_read_here() {
        assert_eq!(number("4096"), Some(4096.0));
        assert_eq!(number("-1.5e-3"), Some(-1.5e-3));
        assert_eq!(number(".5"), Some(0.5));
        assert_eq!(number("1."), Some(1.0));
        for other in ["", ".", "e5", "1e", " 1", "1_000", "nan", "inf", "0x10", "1.5\t", "+", "--1"] {
            assert_eq!(number(other), None, "{other}");
        }
    }

    #[test]
    fn a_head_is_placed_as_the_python_pattern_places_it() {
        assert_eq!(
            place_of(r"\\h\Physical Disk Path(vmhba1:C0:T0:L0)"),
            Some(("Physical Disk Path", "vmhba1:C0:T0:L0"))
        );
        assert_eq!(place_of(r"\\h\Obj(a(b)c)"), Some(("Obj", "a(b)c")));
        assert_eq!(place_of(r"\\h\x\Obj()"), Some((r"x\Obj", "")));
        for none in [r"\h\Obj(a)", r"\\h\Obj(a", r"\\h\Obj)", r"\\hObj(a)", ""] {
            assert_eq!(place_of(none), None, "{none}");
        }
    }
}
