//! What a policy's config provides to the registration list (`registry.rs`), and the host stack
//! it names: the types every policy file and the list share, here so that the list imports the
//! policy files and they import only this.

use crate::params::{PolicyError, PolicySpec};
use crate::{PathSelector, Selector};
use serde::Serialize;

/// The host multipath stack a policy runs in: it decides timeouts, retries and what happens
/// with no path (the simulator's `model/stack.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostStack {
    /// VMware ESXi: NMP with its PSPs, HPP, and PowerPath/VE (a third-party plug-in under the
    /// same storage stack and APD handling). pathlab's own policy runs on it too: it is the host
    /// pathlab models by default (claim rules, esxcli, esxtop).
    Esxi,
    LinuxDm,
    LinuxNvme,
    Spdk,
    Windows,
}

/// What each policy's config provides to the registration list.
pub trait Registered: Default + Serialize {
    /// Description and parameters, for validation and the catalogue.
    const SPEC: &'static PolicySpec;
    const HOST: HostStack;
    /// Checks every parameter against the range the real stack accepts.
    fn validate(&self) -> Result<(), PolicyError> {
        Ok(())
    }
    /// A fresh policy instance for one device, from a config that passed `validate`.
    fn build(&self) -> Box<dyn PathSelector>;
    /// The instance as a harness holds it (`selector.rs`): through the trait unless the
    /// policy is one the harness calls directly.
    fn selector(&self) -> Selector {
        Selector::Other(self.build())
    }
}
