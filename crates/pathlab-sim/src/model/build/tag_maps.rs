//! The block layer's tag maps (`model::tags`) of the controllers under Linux NVMe heads.

use super::values::err;
use crate::model::tags::{NVME_DEFAULT_QUEUE_SIZE, NVME_QUEUE_SIZE_RANGE};
use crate::model::Model;
use crate::scenario::error::FieldError;
use crate::scenario::schema::HostSpec;

/// Tag maps for the controllers under Linux NVMe heads, sized by their host's `nvme connect`
/// options (checked on every host, used or not).
pub(super) fn tag_maps(m: &mut Model, hosts: &[(String, &HostSpec)]) -> Result<(), FieldError> {
    let mut options = Vec::new();
    for (field, host) in hosts {
        let queue_size = host.stack.nvme_queue_size.unwrap_or(NVME_DEFAULT_QUEUE_SIZE);
        let (low, high) = NVME_QUEUE_SIZE_RANGE;
        if !(low..=high).contains(&queue_size) {
            return err(
                format!("{field}.stack.nvme_queue_size"),
                format!("{queue_size}: allowed {low}..={high} (nvme connect --queue-size)"),
            );
        }
        let cpus = m.host.cpus;
        let io_queues = host.stack.nvme_io_queues.unwrap_or(cpus);
        if !(1..=cpus).contains(&io_queues) {
            return err(
                format!("{field}.stack.nvme_io_queues"),
                format!("{io_queues}: allowed 1..={cpus}: the kernel makes at most one I/O queue per CPU"),
            );
        }
        options.push((queue_size, io_queues));
    }
    for (p, path) in m.paths.iter().enumerate() {
        let device = &m.devices[path.device];
        if device.bio_based {
            let (queue_size, io_queues) = options[device.host];
            m.tags.add_controller(path.nexus, queue_size, io_queues);
            m.tags.add_path(p, Some(path.nexus));
        } else {
            m.tags.add_path(p, None);
        }
    }
    Ok(())
}
