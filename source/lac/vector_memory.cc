// deal.II keeps the pool of GrowingVectorMemory in a .templates.h file and
// instantiates it only for its own vectors; instantiate it for ours.
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/vector_memory.templates.h>

namespace dealii
{
  template class VectorMemory<GPU::Vector<float>>;
  template class VectorMemory<GPU::Vector<double>>;
  template class GrowingVectorMemory<GPU::Vector<float>>;
  template class GrowingVectorMemory<GPU::Vector<double>>;
} // namespace dealii
