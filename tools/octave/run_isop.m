% Runs the authors' IsoP.m on every case of a .mat file written by make_isop_fixture.py and saves
% their eigenvectors and eigenvalues.  Called by make_isop_fixture.py with the toolbox on the path.
function run_isop(input_file, output_file)
cases = load(input_file);
names = fieldnames(cases);
out = struct();
for i = 1:numel(names)
  c = cases.(names{i});
  options = struct('k', double(c.k), 'NeighborMode', c.mode, 'gnd', double(c.y(:)), 'ReducedDim', size(c.X, 2));
  [eigvector, eigvalue] = IsoP(options, double(c.X));
  out.(names{i}) = struct('eigvector', eigvector, 'eigvalue', eigvalue);
end
save('-mat7-binary', output_file, '-struct', 'out');
end
