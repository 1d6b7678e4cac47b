//! NVMe native multipath's claim table: the udev rules vendors ship to set a subsystem's
//! `iopolicy` when it appears, over the kernel's default.
//!
//! The kernel gives every new subsystem the `nvme_core.iopolicy` module parameter, `numa` unless
//! the host sets it (torvalds/linux `drivers/nvme/host/multipath.c`, `nvme_mpath_default_iopolicy`;
//! "Default multipath I/O policy; 'numa' (default), 'round-robin' or 'queue-depth'"). Then udev
//! runs the rules for the `nvme-subsystem` add event; those nvme-cli installs
//! (linux-nvme/nvme-cli `nvmf-autoconnect/udev-rules/`, commit e117ee68059f, 2026-08-21) match
//! the subsystem's `model` exactly (udev ignores the attribute's trailing blanks) and write
//! `ATTR{iopolicy}`:
//! - `71-nvmf-netapp.rules`: "NetApp ONTAP Controller" → queue-depth (round-robin until
//!   commit 48263a3e9, 2025-01-31), "NetApp E-Series" → round-robin;
//! - `71-nvmf-vastdata.rules`: "VASTData" → round-robin;
//! - `71-nvmf-hpe.rules`: "HPE Alletra" → round-robin.
//!
//! Dell PowerStore and Pure FlashArray ship no such rule in nvme-cli; their NVMe hosts keep the
//! kernel's default unless the admin writes one.

use pathlab_policy::NvmeIoPolicy;

/// One rule: the subsystem model it matches, the iopolicy it writes, and its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IopolicyRule {
    pub model: &'static str,
    pub iopolicy: NvmeIoPolicy,
    pub file: &'static str,
}

pub const RULES: &[IopolicyRule] = &[
    IopolicyRule { model: "HPE Alletra", iopolicy: NvmeIoPolicy::RoundRobin, file: "71-nvmf-hpe.rules" },
    IopolicyRule { model: "NetApp ONTAP Controller", iopolicy: NvmeIoPolicy::QueueDepth, file: "71-nvmf-netapp.rules" },
    IopolicyRule { model: "NetApp E-Series", iopolicy: NvmeIoPolicy::RoundRobin, file: "71-nvmf-netapp.rules" },
    IopolicyRule { model: "VASTData", iopolicy: NvmeIoPolicy::RoundRobin, file: "71-nvmf-vastdata.rules" },
];

/// The kernel's default iopolicy (`nvme_core.iopolicy`).
pub const KERNEL_DEFAULT: NvmeIoPolicy = NvmeIoPolicy::Numa;

/// The rule that sets a subsystem's iopolicy, if any (the last matching rule writes last).
pub fn rule_for(model: &str) -> Option<&'static IopolicyRule> {
    RULES.iter().rev().find(|r| r.model == model.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_rules_set_the_iopolicy_by_subsystem_model() {
        let policy = |model: &str| rule_for(model).map(|r| r.iopolicy);
        assert_eq!(policy("NetApp ONTAP Controller"), Some(NvmeIoPolicy::QueueDepth));
        assert_eq!(policy("NetApp ONTAP Controller  "), Some(NvmeIoPolicy::QueueDepth), "trailing blanks ignored");
        assert_eq!(policy("NetApp E-Series"), Some(NvmeIoPolicy::RoundRobin));
        assert_eq!(policy("VASTData"), Some(NvmeIoPolicy::RoundRobin));
        assert_eq!(policy("HPE Alletra"), Some(NvmeIoPolicy::RoundRobin));
        assert_eq!(policy("NetApp ONTAP"), None, "udev compares the whole value");
        assert_eq!(policy("Pure Storage FlashArray"), None);
        assert_eq!(KERNEL_DEFAULT, NvmeIoPolicy::Numa);
    }
}
