// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib: schedule-based communication for distributed arrays.  One include
/// for everything public.
#pragma once

#include <adlib/version.hpp>

#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/directory.hpp>
#include <adlib/runtime/environment.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/located.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/runtime/watchdog.hpp>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/block_cyclic_range.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/dap_descriptor.hpp>
#include <adlib/ranges/dap_export.hpp>
#include <adlib/ranges/dap_import.hpp>
#include <adlib/ranges/dap_validation.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/irregular_block_range.hpp>
#include <adlib/ranges/local_box.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/range.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/ranges/triplet.hpp>
#include <adlib/ranges/unstructured_field.hpp>
#include <adlib/ranges/unstructured_layout.hpp>
#include <adlib/ranges/unstructured_range.hpp>

#include <adlib/schedules/block_data_schedule.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>
#include <adlib/schedules/block_redx_schedule.hpp>
#include <adlib/schedules/data_schedule.hpp>
#include <adlib/schedules/direction.hpp>
#include <adlib/schedules/redx_schedule.hpp>
#include <adlib/schedules/tree_schedule.hpp>

#include <adlib/collectives/array_gather.hpp>
#include <adlib/collectives/array_reduction.hpp>
#include <adlib/collectives/array_scatter.hpp>
#include <adlib/collectives/array_subscripts.hpp>
#include <adlib/collectives/array_text.hpp>
#include <adlib/collectives/boundary.hpp>
#include <adlib/collectives/broadcast.hpp>
#include <adlib/collectives/depth_halo.hpp>
#include <adlib/collectives/depth_halo_plan.hpp>
#include <adlib/collectives/dimension_reduction.hpp>
#include <adlib/collectives/field_reductions.hpp>
#include <adlib/collectives/gather.hpp>
#include <adlib/collectives/gather_all.hpp>
#include <adlib/collectives/group_comm.hpp>
#include <adlib/collectives/halo_plan.hpp>
#include <adlib/collectives/index_exchange_plan.hpp>
#include <adlib/collectives/negotiated_remap_plan.hpp>
#include <adlib/collectives/print.hpp>
#include <adlib/collectives/print_layout.hpp>
#include <adlib/collectives/print_options.hpp>
#include <adlib/collectives/remap.hpp>
#include <adlib/collectives/remap_plan.hpp>
#include <adlib/collectives/runs_schedule.hpp>
#include <adlib/collectives/scalar_reductions.hpp>
#include <adlib/collectives/scatter.hpp>
#include <adlib/collectives/shift.hpp>
#include <adlib/collectives/shift_plan.hpp>
#include <adlib/collectives/write_halo.hpp>
