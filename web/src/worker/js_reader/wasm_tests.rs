//! Browser tests of reading a JS `ArrayBuffer` through `Read + Seek`: positions, the ends of the
//! buffer, and a ZIP archive unpacked straight from JS memory.

use std::io::{Read, Seek, SeekFrom, Write};

use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen_test::*;

use super::JsBufferReader;

wasm_bindgen_test_configure!(run_in_browser);

fn buffer(bytes: &[u8]) -> ArrayBuffer {
    Uint8Array::from(bytes).buffer()
}

#[wasm_bindgen_test]
fn reads_follow_the_position_and_stop_at_the_end() {
    let mut reader = JsBufferReader::new(&buffer(b"0123456789"));
    let mut four = [0u8; 4];
    assert_eq!(reader.read(&mut four).expect("read"), 4);
    assert_eq!(&four, b"0123");
    assert_eq!(reader.seek(SeekFrom::Current(2)).expect("seek"), 6);
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).expect("read");
    assert_eq!(rest, b"6789");
    assert_eq!(reader.read(&mut four).expect("read at the end"), 0);
    // Past the end is a position to read nothing from, as for a file.
    assert_eq!(reader.seek(SeekFrom::Start(50)).expect("seek"), 50);
    assert_eq!(reader.read(&mut four).expect("read past the end"), 0);
}

#[wasm_bindgen_test]
fn seeks_from_the_end_and_refuses_a_position_before_the_start() {
    let mut reader = JsBufferReader::new(&buffer(b"abcdef"));
    assert_eq!(reader.seek(SeekFrom::End(-2)).expect("seek"), 4);
    let mut two = [0u8; 2];
    reader.read_exact(&mut two).expect("read");
    assert_eq!(&two, b"ef");
    assert!(reader.seek(SeekFrom::End(-7)).is_err());
    assert!(reader.seek(SeekFrom::Current(-100)).is_err());
    // A refused seek leaves the position where it was.
    assert_eq!(reader.stream_position().expect("position"), 6);
}

#[wasm_bindgen_test]
fn a_zip_archive_unpacks_from_js_memory() {
    let mut bytes = Vec::new();
    {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for (path, text) in [("a.py", "def a(): pass\n"), ("pkg/b.rs", "fn b() {}\n")] {
            writer.start_file(path, options).expect("entry");
            writer.write_all(text.as_bytes()).expect("write");
        }
        writer.finish().expect("finish");
    }
    let mut archive =
        zip::ZipArchive::new(JsBufferReader::new(&buffer(&bytes))).expect("an archive");
    assert_eq!(archive.len(), 2);
    let mut text = String::new();
    archive
        .by_name("pkg/b.rs")
        .expect("entry")
        .read_to_string(&mut text)
        .expect("read");
    assert_eq!(text, "fn b() {}\n");
}
