// deal.II defines the multigrid cycle and two defaults of its base classes
// outside its headers; provide them for GPU::Vector.
#include <dealii-gpu/lac/vector.h>

#include <deal.II/multigrid/mg_base.h>
#include <deal.II/multigrid/multigrid.templates.h>

namespace dealii
{
  // Default: prolongate into a temporary and add.
  template <typename VectorType>
  void MGTransferBase<VectorType>::prolongate_and_add(
      const unsigned int to_level, VectorType &dst, const VectorType &src) const
  {
    VectorType prolongated;
    prolongated.reinit(dst, true);
    prolongate(to_level, prolongated, src);
    dst += prolongated;
  }

  // Default: smoothing from a zero initial guess.
  template <typename VectorType>
  void MGSmootherBase<VectorType>::apply(const unsigned int level,
                                         VectorType        &u,
                                         const VectorType  &rhs) const
  {
    u = typename VectorType::value_type(0);
    smooth(level, u, rhs);
  }

  template class MGTransferBase<GPU::Vector<float>>;
  template class MGTransferBase<GPU::Vector<double>>;
  template class MGSmootherBase<GPU::Vector<float>>;
  template class MGSmootherBase<GPU::Vector<double>>;
  template class MGMatrixBase<GPU::Vector<float>>;
  template class MGMatrixBase<GPU::Vector<double>>;
  template class MGCoarseGridBase<GPU::Vector<float>>;
  template class MGCoarseGridBase<GPU::Vector<double>>;
  template class Multigrid<GPU::Vector<float>>;
  template class Multigrid<GPU::Vector<double>>;
} // namespace dealii
