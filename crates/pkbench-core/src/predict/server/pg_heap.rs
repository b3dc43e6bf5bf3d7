//! PostgreSQL's heap for the model (`htup_details.h`, `bufpage.h`, `hio.c`): tuple sizes from
//! the columns `engines::postgres::schema` creates, and pages filled one after the other.

use super::nbtree::{HEAP_TUPLE_HEADER, LINE_POINTER, PAGE, PAGE_HEADER, maxalign};
use crate::strategy::Storage;

/// A heap column: stored bytes and alignment (`attlen`, `attalign`), or a varlena short
/// enough for a 1-byte header, which is never aligned (`heap_fill_tuple`).
pub(crate) fn column(storage: Storage) -> (u32, u32) {
    match storage {
        Storage::Integer => (8, 8),
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => (16, 1),
        Storage::Text36 | Storage::VarText36 => (37, 1),
        Storage::Hex32 | Storage::VarHex32 => (33, 1),
        Storage::Text26 => (27, 1),
    }
}

/// The heap: appends go to the last page while the tuple fits (`RelationGetBufferForTuple`
/// with fillfactor 100), else the relation is extended by one page.
#[derive(Debug)]
pub(super) struct Heap {
    /// `MAXALIGN(t_len)` + line pointer.
    pub(super) item: u32,
    /// `t_len − SizeofHeapTupleHeader`: the tuple bytes a heap insert record carries.
    pub(super) logged: u32,
    /// Tuples per page.
    pub(super) per_page: u32,
    /// Page numbers, in file order.
    pub(super) pages: Vec<u32>,
    /// Tuples on the last page.
    pub(super) on_last: u32,
    /// The free space map's root, internal and leaf pages, created when the first page fills.
    pub(super) fsm: Option<[u32; 3]>,
}

impl Heap {
    /// The heap of rows with these columns (bytes, alignment), in order.
    pub(super) fn new(columns: &[(u32, u32)]) -> Self {
        let mut data: u32 = 0;
        for &(len, align) in columns {
            data = data.div_ceil(align) * align + len;
        }
        let t_len = maxalign(HEAP_TUPLE_HEADER) + data;
        let item = maxalign(t_len) + LINE_POINTER;
        // (n + 1) tuples fit while (n + 1) × item <= page − header; at most MaxHeapTuplesPerPage.
        let per_page = ((PAGE - PAGE_HEADER) / item).min(291);
        Heap { item, logged: t_len - HEAP_TUPLE_HEADER, per_page, pages: Vec::new(), on_last: 0, fsm: None }
    }

    /// Bytes of a full-page image of a page holding `n` tuples (the hole left out).
    pub(super) fn image(&self, n: u32) -> u32 {
        PAGE_HEADER + n * self.item
    }

    /// `pgstattuple`'s free space of a page holding `n` tuples (`PageGetHeapFreeSpace`).
    pub(super) fn free(&self, n: u32) -> u32 {
        (PAGE - PAGE_HEADER).saturating_sub(n * self.item + LINE_POINTER)
    }
}
