// GPU::GeometryStorage: the forms in which GPU::MatrixFree keeps the cell
// geometry on the device (a header of its own so that parameter classes can
// name the choice without the matrix-free headers).
#ifndef dealii_gpu_matrix_free_geometry_storage_h
#define dealii_gpu_matrix_free_geometry_storage_h

#include <string>

namespace dealii
{
  namespace GPU
  {
    /**
     * How the cell geometry is kept on the device. Measured on an H100
     * (doc/benchmarks.md): points hold about a third of the data per DoF
     * (3D: Q2 140 instead of 408 bytes, so problems 2.9x larger fit) and
     * run at 1.03-1.07x the stored-Jacobian speed at Q2-Q3, 0.57-0.88x at
     * Q4-Q8 (the kernel computes each point's Jacobian).
     */
    enum class GeometryStorage
    {
      /** Inverse Jacobian and JxW at every quadrature point
       *  (dim * dim + 1 numbers a point); any Mapping. The default. */
      jacobians,
      /** The quadrature points only (dim numbers a point); the kernel
       *  computes the Jacobians from them. Needs MappingQ(p) (or
       *  MappingCartesian) with p < n_q_points_1d: the points then
       *  determine the mapping and the Jacobians are exact. */
      points,
      /** The mapping as a continuous field at the element's support
       *  points: dim numbers a DoF node, shared between the cells and read
       *  through the DoF indices (vector-valued fields and cells with
       *  hanging nodes keep one index a node per cell). The kernel
       *  interpolates it to the quadrature points, then goes on as with
       *  points. The least memory (3D on an H100, doc/benchmarks.md, with
       *  the coefficient computed in the kernel: Q2 53 bytes per DoF,
       *  against 140 with points and 408 with stored Jacobians; Q1 72;
       *  40 at Q1 and Q2 where the DoF indices are computed, see
       *  n_structured_cells()).
       *  With one thread per point it runs at 0.67-0.75 of the points
       *  speed at Q2-Q4; with one thread per cell (CellThreads) it is the
       *  fastest form at Q1-Q2.
       *  Needs MappingQ(p) (or MappingCartesian) with p <= fe_degree, so
       *  that FE_Q(fe_degree) represents the mapping exactly, and a
       *  mapping continuous between cells (checked). Coefficients are then
       *  best computed in the kernel from FEEvaluation::quadrature_point. */
      field,
      /** The field where one thread per cell runs it (3D, one component,
       *  at most 27 quadrature points, no hanging nodes on this rank,
       *  MappingQ(p) or MappingCartesian with p <= fe_degree); jacobians
       *  otherwise, and where the mapping turns out not to be continuous
       *  between cells. Measured on the H100 (doc/benchmarks.md): there the
       *  field is the smallest form and as fast as or faster than stored
       *  Jacobians (the operator alone 2.2-2.9x with the coefficient in
       *  the kernel; a multigrid V-cycle with stored coefficients the same
       *  speed in 2.7x less device memory). get_geometry_storage() tells
       *  which was taken. */
      automatic
    };

    /** "jacobians", "points", "field" or "automatic". */
    std::string to_string(const GeometryStorage geometry);

    /** The inverse of to_string(); an exception for any other name. */
    GeometryStorage geometry_storage_from_string(const std::string &name);
  } // namespace GPU
} // namespace dealii

#endif
