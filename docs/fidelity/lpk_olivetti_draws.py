"""Paper 002 Fig. 11: how much the one test draw (2 images of each subject) moves the accuracy.

For 20 seeded draws of the §6.3 split of `olivetti_gender_unit`, the linear SVM without reduction
(C = 1; the 320 x 4096 training set is separable, so every C >= 1 gives the same hard margin) is
trained on the 320 training images and scored on the 80 test images; which subjects the errors
belong to is counted. On the first 5 draws, LPK (p = 2, r = 4, C = 0.01: the C the experiment chose)
is trained and scored the same way, beside the SVM. Run from the repository root after `snakemake lpk_fig11_olivetti`:
    .venv/bin/python docs/fidelity/lpk_olivetti_draws.py
"""

from collections import Counter

import numpy as np
from sklearn.svm import SVC

from locproj.data import read_dataset_file
from locproj.data.splits import grouped_holdout_split
from locproj.engine.registry import make_estimator

data = read_dataset_file("data/views/olivetti_gender_unit.h5")
accuracies, wrong_subjects = [], Counter()
for seed in range(20):
    train, test, _ = grouped_holdout_split(data.groups, seed, test_per_group=2, n_folds=8)
    svm = SVC(kernel="linear", C=1.0).fit(data.X[train], data.y[train])
    wrong = test[svm.predict(data.X[test]) != data.y[test]]
    accuracies.append(100 * (1 - len(wrong) / len(test)))
    wrong_subjects.update(f"s{g + 1} ({data.class_names[data.y[i]]})" for i, g in zip(wrong, data.groups[wrong]))
print(f"SVM without reduction over 20 draws: mean {np.mean(accuracies):.2f}, std {np.std(accuracies, ddof=1):.2f}, "
      f"min {min(accuracies):.2f}, max {max(accuracies):.2f}")
print("test errors by subject:", wrong_subjects.most_common())

for seed in range(5):
    train, test, _ = grouped_holdout_split(data.groups, seed, test_per_group=2, n_folds=8)
    scores = []
    for model in (SVC(kernel="linear", C=1.0),
                  make_estimator("lpk", n_regions=2, n_components=4, C=0.01, random_state=seed)):
        scores.append(100 * model.fit(data.X[train], data.y[train]).score(data.X[test], data.y[test]))
    print(f"draw {seed}: SVM {scores[0]:.2f}, LPK (p = 2, r = 4) {scores[1]:.2f}")
