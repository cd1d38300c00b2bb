export { IvfIndex, EXACT_FILTER_LABELS, type IvfHit, type IvfIndexOptions, type IvfSearchOptions } from './ivf-index';
export { trainCentroids, type TrainCentroidsOptions } from './train-centroids';
export { defaultLists, defaultProbes, trainingSampleSize } from './ivf-parameters';
