//! Discovery documents (to be written).
