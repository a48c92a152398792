function D = dijkstra(G, sources)
% DIJKSTRA  Shortest-path distances on a graph: a stand-in, in plain Octave, for the compiled
% dijkstra.mex* that Deng Cai's IsoP.m calls and that is not distributed as source.
%
%   D = dijkstra(G, sources)
%
%   G       - n x n sparse matrix; G(i, j) > 0 is the length of the edge i -> j, 0 no edge.
%   sources - vector of source vertices.
%   D       - numel(sources) x n distances, Inf where no path exists.
%
% Plain Dijkstra with a dense scan for the closest unvisited vertex: O(n^2) per source, enough
% for the few hundred points of the fixtures in tests/fixtures/.
n = size(G, 1);
D = Inf(numel(sources), n);
[rows, cols, lengths] = find(G);
for s = 1:numel(sources)
  dist = Inf(1, n);
  dist(sources(s)) = 0;
  done = false(1, n);
  for step = 1:n
    candidates = dist;
    candidates(done) = Inf;
    [closest, u] = min(candidates);
    if isinf(closest)
      break;
    end
    done(u) = true;
    out = find(rows == u);
    for e = out'
      v = cols(e);
      if dist(u) + lengths(e) < dist(v)
        dist(v) = dist(u) + lengths(e);
      end
    end
  end
  D(s, :) = dist;
end
end
