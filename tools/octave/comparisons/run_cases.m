function run_cases(listfile, matlabfunc, octave_tools, kge_patched, kge_partial, olge_diag)
% RUN_CASES  Run Deng Cai's constructW + LPP / OLPP / KLPP on every case listed in LISTFILE.
%
%   run_cases(listfile, matlabfunc, octave_tools, kge_patched, kge_partial, olge_diag)
%
% Called by common_lpp.py's run_octave.  MATLABFUNC is the toolbox folder (its Tools/ and
% SubspaceLearning/ go on the path), OCTAVE_TOOLS the folder of dijkstra.m (tools/octave), and the
% last three the folders of the modified copies of the authors' files (README.md; '' when unset).
%
% Each line of LISTFILE is "infile.mat outfile.mat".  infile holds
%   fea      - n x d data (rows are samples)
%   method   - 'LPP', 'OLPP', 'KLPP', 'W' (graph only) or 'EVAL'
%   wopts    - struct for constructW (may hold gnd)
%   mopts    - struct for the method (ReducedDim, Regu, KernelType, t, ...)
%   code     - for method 'EVAL': Octave code run with fea, W, mopts, setting V / e
%   diag_olge - optional, 1: put OLGE_DIAG first (OLGE that prints eigs' error message)
%   seed     - optional: rand/randn state set before the case (eigs' random start vector)
%   patched_partial - optional, 1: put KGE_PARTIAL first (KGE with only the products fixed)
%   patched  - optional, 1: put KGE_PATCHED first on the path (KGE with its PCA branch fixed)
% outfile gets V (eigvector), e (eigvalue), W (the affinity used), ok, err, t_used.
%
% The authors' files are used unmodified from MATLABFUNC; only cases that ask for it put a
% modified copy first on the path.
addpath(octave_tools);
addpath(fullfile(matlabfunc, 'Tools'));
addpath(fullfile(matlabfunc, 'SubspaceLearning'));
fid = fopen(listfile, 'r');
lines = {};
while true
  l = fgetl(fid);
  if ~ischar(l), break; end
  if ~isempty(strtrim(l)), lines{end+1} = strtrim(l); end
end
fclose(fid);
for c = 1:numel(lines)
  parts = strsplit(lines{c}, ' ');
  infile = parts{1}; outfile = parts{2};
  S = load(infile);
  printf('=== case %d\n', c);
  if isfield(S, 'patched') && S.patched
    addpath(kge_patched);
  end
  if isfield(S, 'diag_olge') && S.diag_olge
    addpath(olge_diag);
  end
  if isfield(S, 'patched_partial') && S.patched_partial
    addpath(kge_partial);
  end
  if isfield(S, 'seed')  % Octave's eigs starts ARPACK from a vector drawn with rand
    rand('state', S.seed); randn('state', S.seed);
  end
  V = []; e = []; W = []; ok = 1; err = ''; t_used = NaN;
  try
    fea = S.fea;
    wopts = S.wopts;
    if isfield(wopts, 'gnd'), wopts.gnd = wopts.gnd(:); end
    W = constructW(fea, wopts);
    mopts = S.mopts;
    method = S.method;
    if strcmp(method, 'LPP')
      [V, e] = LPP(W, mopts, fea);
    elseif strcmp(method, 'OLPP')
      [V, e, ok] = OLPP(W, mopts, fea);
    elseif strcmp(method, 'KLPP')
      [V, e] = KLPP(W, mopts, fea);
      if ~isfield(mopts, 't') && (~isfield(mopts, 'KernelType') || strcmpi(mopts.KernelType, 'Gaussian'))
        [K, o2] = constructKernel(fea, [], mopts); t_used = o2.t;
      end
    elseif strcmp(method, 'W')
      % graph only
    elseif strcmp(method, 'EVAL')
      % S.code may read fea, W, mopts and must set V and/or e (diagnostics only)
      eval(S.code);
    else
      error('unknown method %s', method);
    end
  catch ex
    ok = 0; err = ex.message;
  end
  W = full(W);
  save('-mat7-binary', outfile, 'V', 'e', 'W', 'ok', 'err', 't_used');
  if isfield(S, 'patched') && S.patched
    rmpath(kge_patched);
  end
  if isfield(S, 'diag_olge') && S.diag_olge
    rmpath(olge_diag);
  end
  if isfield(S, 'patched_partial') && S.patched_partial
    rmpath(kge_partial);
  end
end
end
