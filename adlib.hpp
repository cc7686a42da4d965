// adlib: schedule-based communication for distributed arrays.  One include
// for everything public.
#pragma once

#include "runtime/comm.hpp"
#include "runtime/environment.hpp"
#include "runtime/error.hpp"
#include "runtime/pack.hpp"
#include "runtime/strided_block.hpp"

#include "ranges/array_layout.hpp"
#include "ranges/block_cyclic_range.hpp"
#include "ranges/block_range.hpp"
#include "ranges/collapsed_range.hpp"
#include "ranges/dist_array.hpp"
#include "ranges/irregular_block_range.hpp"
#include "ranges/process_grid.hpp"
#include "ranges/range.hpp"
#include "ranges/triplet.hpp"

#include "schedules/block_mess_schedule.hpp"

#include "collectives/boundary.hpp"
#include "collectives/gather_all.hpp"
#include "collectives/halo_plan.hpp"
#include "collectives/planned_schedule.hpp"
#include "collectives/remap.hpp"
#include "collectives/remap_plan.hpp"
#include "collectives/shift.hpp"
#include "collectives/write_halo.hpp"
