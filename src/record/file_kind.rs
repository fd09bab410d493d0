//! What a recording's path is when it is no regular file, in words: a
//! FIFO with no writer would make its reader wait for ever, a device
//! would never end, so either is refused before it is opened.

use std::os::unix::fs::FileTypeExt;

/// What `kind` is in words, or `None` for a regular file.
pub(super) fn not_a_file(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    Some(if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO (a named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "something that is no regular file"
    })
}
