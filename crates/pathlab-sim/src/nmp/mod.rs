//! ESXi's Native Multipathing around the policies, in one home: the esxcli commands a scenario
//! carries (`esxcli.rs`), the SATP claim rules and PSP options they change (`claim_rules.rs`),
//! and the per-device and per-path config strings esxcli prints (`views.rs`).

pub mod claim_rules;
pub mod esxcli;
pub mod views;

pub use claim_rules::*;
