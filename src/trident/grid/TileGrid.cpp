#include "trident/grid/TileGrid.hpp"

#include "trident/grid/Topology.hpp"

namespace Trident {

TileGrid TileGrid::forUnits(int units) {
  TileGrid g;
  // Taller than wide (rows >= cols): fewer column blocks means fewer ranks share each row of C, so
  // less of C moves on the way back to a 1D row map (with cols = 1, none beyond slice
  // boundaries), and for A*P with a thin P the operand that moves over Gi is the small one.
  nearSquare(units, g.cols, g.rows);
  g.rounds = std::lcm(g.rows, g.cols);
  return g;
}

TileGrid TileGrid::rowsOnly(int units) {
  TileGrid g;
  g.rows = units;
  g.cols = 1;
  g.rounds = units;
  return g;
}

}  // namespace Trident
