//! Consultation (合議): the coordinator, its rounds and the policies that merge members' answers.

pub mod annotate;
pub mod answer;
pub mod deadline;
pub mod options;
pub mod policy;
