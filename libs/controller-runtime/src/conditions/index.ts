// Status conditions with apimachinery's semantics (`meta.SetStatusCondition` and friends): the last transition
// time moves only when the status does. The most used are at the package root, all of them in
// `@opkit/controller-runtime/controllerutil`.
export {
  type ConditionsResult,
  type ConditionUpdate,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  setStatusConditions,
} from './conditions.js';
