// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// MpiOperation<T, Op>: the MPI_Op that applies a combine operation to
/// elements of type T, for collectives that MPI itself runs (MPI_Allreduce).
///
/// @code
///   adlib::MpiOperation<double, adlib::op::Add> sum(adlib::op::add);   // MPI_SUM
///   auto scope = sum.scope();          // makes the operation reachable by MPI's callback
///   MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, sum.get(), comm);
/// @endcode
///
/// MPI's own operation where one exists (MPI_SUM, MPI_PROD, MPI_LAND,
/// MPI_LOR on the types MPI defines them for; MPI_MIN and MPI_MAX on integers
/// only, since adlib's propagate NaN and MPI's need not); otherwise
/// an operation made with MPI_Op_create (declared commutative, as every
/// adlib combine operation given to a reduction must be) that calls `Op`.
/// MPI's callback has no user argument, so the operation object is reached
/// through a thread-local pointer that scope() sets for the duration of one
/// collective call: keep the scope object alive around the MPI call.  Host
/// memory only (MPI runs the callback on the host).
#pragma once

#include <mpi.h>

#include <complex>
#include <type_traits>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

/// The MPI_Op of a combine operation on T (see the file overview).  Not
/// copyable: it may own an MPI object.
template <class T, class Op>
class MpiOperation {
 public:
  /// The operation for `operation` (a copy is kept).
  explicit MpiOperation(const Op& operation) : operation_(operation) {
    mpi_op_ = predefined();
    if (mpi_op_ == MPI_OP_NULL) {
      ADLIB_MPI(MPI_Op_create(&apply, 1, &mpi_op_), "MpiOperation");
      owned_ = true;
    }
  }
  MpiOperation(const MpiOperation&) = delete;
  MpiOperation& operator=(const MpiOperation&) = delete;
  ~MpiOperation() {
    int finalized = 0;
    ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
    if (owned_ && !finalized) ADLIB_MPI_CLEANUP(MPI_Op_free(&mpi_op_));
  }

  /// The MPI_Op to pass to MPI.
  MPI_Op get() const { return mpi_op_; }
  /// Is it one of MPI's own (then it also works on device memory with a
  /// GPU-aware MPI)?
  bool predefined_by_mpi() const { return !owned_; }

  /// Makes this operation the one MPI's callback applies, until destroyed.
  class Scope {
   public:
    /// Points the callback at `operation`.
    explicit Scope(const Op* operation) : previous_(current()) { current() = operation; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { current() = previous_; }

   private:
    const Op* previous_;
  };
  /// See Scope.
  Scope scope() const { return Scope(&operation_); }

 private:
  static const Op*& current() {
    static thread_local const Op* operation = nullptr;
    return operation;
  }
  // MPI's contract: inout[i] = in[i] (op) inout[i], `in` holding the
  // contributions of lower ranks.
  static void apply(void* in, void* inout, int* length, MPI_Datatype*) {
    const Op& operation = *current();
    const T* arriving = static_cast<const T*>(in);
    T* target = static_cast<T*>(inout);
    for (int i = 0; i < *length; ++i) {
      T value = arriving[i];
      operation(value, target[i]);
      target[i] = value;
    }
  }
  static MPI_Op predefined() {
    using U = std::remove_cv_t<T>;
    constexpr bool complex =
        std::is_same_v<U, std::complex<float>> || std::is_same_v<U, std::complex<double>>;
    constexpr bool number = std::is_arithmetic_v<U> && !std::is_same_v<U, bool>;
    if (predefined_datatype<T>() == MPI_DATATYPE_NULL) return MPI_OP_NULL;
    if constexpr (number || complex) {
      if (Op::kind == op::Kind::add) return MPI_SUM;
      if (Op::kind == op::Kind::product) return MPI_PROD;
    }
    // Not for floating point: what MPI_MIN and MPI_MAX make of a NaN depends
    // on the implementation and on the order of combination; adlib's own
    // op::Min and op::Max propagate it (runtime/combine.hpp).
    if constexpr (number && !std::is_floating_point_v<U>) {
      if (Op::kind == op::Kind::min) return MPI_MIN;
      if (Op::kind == op::Kind::max) return MPI_MAX;
    }
    if constexpr (std::is_integral_v<U>) {
      if (Op::kind == op::Kind::logical_and) return MPI_LAND;
      if (Op::kind == op::Kind::logical_or) return MPI_LOR;
    }
    return MPI_OP_NULL;
  }

  Op operation_;
  MPI_Op mpi_op_ = MPI_OP_NULL;
  bool owned_ = false;
};

}  // namespace adlib
